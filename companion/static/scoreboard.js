// The scoreboard of one table. It follows the table's live event stream (a reconnecting
// browser sends the last event id it saw and catches up from there), draws the board the
// server renders, and sends what players enter (taps on the board, move buttons, undo,
// end of turn, a new game, a position) with the table's PIN. The rules are judged on the
// server only: the page never decides whether a move is legal.
"use strict";
(function () {
  const body = document.body;
  const table = body.dataset.table;
  const api = "/api/tables/" + encodeURIComponent(table);
  const $ = function (id) { return document.getElementById(id); };

  const WORDS = {
    en: {
      hints: "Hints", tables: "Tables", dismiss: "Dismiss", enter: "Enter what happened:",
      pin: "PIN", endTurn: "End turn", undo: "Take back the last move", newGame: "New game",
      game: "Game", players: "Players, one per line, by seat", kit: "Kit", start: "Start",
      editPosition: "Edit the position (join a game in progress)",
      positionHelp: "The position in the notation (docs/notation.md): change what differs " +
        "from the table, then set it. The game so far stays on record.",
      setPosition: "Set this position", live: "Live", reconnecting: "Reconnecting…",
      over: "Game over: ", chance: "Waiting for the die or the lot.", toAct: " to act.",
      noMove: "No move yet.", flag: "Not allowed:", question: "Which move was it?",
      say: "Note:", byHand: "Enter by hand:", needPin: "Enter the table's PIN first.",
      wrongPin: "Wrong PIN.", tapped: "Tapped: ", up: "connected", down: "not connected",
      port: "port", boot: "boot id", heartbeat: "last heartbeat", secondsAgo: " s ago",
      rulebook: "Rulebook", source: "Seen by", kitHead: "The sensors disagree with the kit.",
      kitHelp: "The game follows what they saw. Keep it as this table's kit for the next games?",
      keepKit: "Keep the corrected kit", inKit: "in the kit", seen: "seen",
      waiting: "Waiting for ", notConnected: " is not connected.", byHandBelow:
        " Enter what happens by hand below.", notation: "The position in the notation",
      editorHelp: "Tap a place on this board to choose what stands there, and say whose " +
        "turn it is; then set the position. The game so far stays on record.",
      red: "red", blue: "blue", green: "green", yellow: "yellow", white: "White", black: "Black",
    },
    de: {
      hints: "Hinweise", tables: "Tische", dismiss: "Übergehen", enter: "Eingeben, was geschah:",
      pin: "PIN", endTurn: "Zug beenden", undo: "Letzten Zug zurücknehmen", newGame: "Neues Spiel",
      game: "Spiel", players: "Spieler, einer pro Zeile, nach Platz", kit: "Material",
      start: "Starten", editPosition: "Stellung bearbeiten (laufendem Spiel beitreten)",
      positionHelp: "Die Stellung in der Notation (docs/notation.md): ändern, was vom Tisch " +
        "abweicht, dann setzen. Das bisherige Spiel bleibt im Protokoll.",
      setPosition: "Diese Stellung setzen", live: "Live", reconnecting: "Verbinde neu…",
      over: "Spielende: ", chance: "Warten auf den Würfel oder das Los.", toAct: " ist am Zug.",
      noMove: "Noch kein Zug.", flag: "Nicht erlaubt:", question: "Welcher Zug war es?",
      say: "Hinweis:", byHand: "Von Hand eingeben:", needPin: "Zuerst die PIN des Tisches eingeben.",
      wrongPin: "Falsche PIN.", tapped: "Angetippt: ", up: "verbunden", down: "nicht verbunden",
      port: "Anschluss", boot: "Boot-Kennung", heartbeat: "letztes Lebenszeichen",
      secondsAgo: " s her", rulebook: "Regelheft", source: "Gesehen von",
      kitHead: "Die Sensoren widersprechen der Kit-Datei.",
      kitHelp: "Das Spiel folgt dem, was sie sahen. Als Kit dieses Tisches für die nächsten " +
        "Spiele behalten?",
      keepKit: "Berichtigtes Kit behalten", inKit: "im Kit", seen: "gesehen",
      waiting: "Warten auf ", notConnected: " ist nicht verbunden.", byHandBelow:
        " Unten von Hand eingeben, was geschieht.", notation: "Die Stellung in der Notation",
      editorHelp: "Auf einen Platz dieses Bretts tippen und wählen, was dort steht, und " +
        "sagen, wer am Zug ist; dann die Stellung setzen. Das bisherige Spiel bleibt im Protokoll.",
      red: "rot", blue: "blau", green: "grün", yellow: "gelb", white: "Weiß", black: "Schwarz",
    },
  };
  let lang = localStorage.getItem("lang") ||
    ((navigator.language || "en").slice(0, 2) === "de" ? "de" : "en");
  let hints = localStorage.getItem("hints") === "1";
  let summary = null;
  let panel = null;
  let taps = [];

  function t(key) { return (WORDS[lang] && WORDS[lang][key]) || WORDS.en[key] || key; }

  function translate() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-t]").forEach(function (element) {
      element.textContent = t(element.dataset.t);
    });
    $("lang").textContent = lang === "en" ? "DE" : "EN";
  }

  function say(text) { $("message").textContent = text || ""; }

  // -- sending changes with the PIN -------------------------------------------------------

  // The PIN stays for this tab's session (a new game reloads the page).
  const pinKey = "pin:" + table;
  $("pin").value = sessionStorage.getItem(pinKey) || "";
  $("pin").addEventListener("input", function () { sessionStorage.setItem(pinKey, pin()); });
  function pin() { return $("pin").value.trim(); }

  function change(path, payload) {
    if (!pin()) {
      say(t("needPin"));
      $("pin").focus();
      return Promise.resolve(null);
    }
    return fetch(api + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Table-PIN": pin() },
      body: JSON.stringify(payload || {}),
    }).then(function (answer) {
      return answer.json().then(function (data) {
        if (answer.status === 401) { say(t("wrongPin")); }
        else if (answer.status === 422 && data.flag) { say(""); }  // the flag shows it
        else if (!answer.ok) { say(data.error || answer.statusText); }
        else { say(""); }
        return { status: answer.status, data: data };
      });
    });
  }

  // -- the summary: scores, turn, last move, what needs attention, sources ---------------

  function show(next) {
    summary = next;
    body.dataset.shownSeq = String(next.seq);  // the journal entry the page shows
    document.querySelectorAll("#players li").forEach(function (item) {
      const seat = Number(item.dataset.seat);
      item.querySelector(".name").textContent = summary.players[seat];
      const colour = summary.colours && summary.colours[seat];
      item.querySelector(".colour").textContent = colour ? "(" + t(colour) + ")" : "";
      item.dataset.colour = colour || "";
      item.querySelector(".score").textContent = summary.scores[seat];
      item.classList.toggle("to-act", summary.to_act === seat);
    });
    const turn = $("turn");
    if (summary.over) {
      turn.textContent = t("over") + summary.outcome.detail;
    } else if (summary.to_act === "chance") {
      turn.textContent = summary.waiting_for
        ? t("waiting") + summary.waiting_for[lang] + "." : t("chance");
    } else {
      turn.textContent = summary.players[summary.to_act] + t("toAct");
    }
    $("last").textContent = (lang === "de" ? summary.last_move_de : summary.last_move) ||
      t("noMove");
    $("title").textContent = summary.title;
    showAttention(summary.attention);
    showCorrection(summary.kit_correction);
    showSources(summary.sources || {});
    $("end-turn").hidden = !summary.turn_open || summary.over;
    showBanner(summary);
  }

  function showAttention(attention) {
    const box = $("attention");
    box.hidden = !attention;
    box.className = "attention" + (attention ? " " + attention.kind : "");
    $("choices").textContent = "";
    if (!attention) { return; }
    $("attention-other").textContent = "";
    $("attention-detail").textContent = attention.detail || "";
    $("attention-source").textContent = attention.source ? t("source") + ": " + attention.source : "";
    if (attention.kind === "flag") {
      $("attention-icon").textContent = "\u26A0\uFE0E";
      $("attention-head").textContent = t("flag");
      const main = lang === "de" ? attention.german : attention.words;
      const other = lang === "de" ? attention.words : attention.german;
      $("attention-words").textContent = (main || attention.rule) + " [" + attention.rule + "]";
      $("attention-other").textContent = other || "";
      if (attention.rulebook) {
        $("attention-source").textContent = t("rulebook") + ": " + attention.rulebook +
          ", \u201C" + attention.heading + "\u201D" +
          (attention.source ? " \u00B7 " + t("source") + ": " + attention.source : "");
      }
    } else if (attention.kind === "question") {
      $("attention-icon").textContent = "?";
      $("attention-head").textContent = t("question");
      $("attention-words").textContent = "";
      attention.choices.forEach(function (choice) {
        const words = lang === "de" && choice.words_de ? choice.words_de : choice.words;
        $("choices").appendChild(moveButton({ move: choice.move, words: words }));
      });
    } else {
      $("attention-icon").textContent = "\u2139\uFE0E";
      $("attention-head").textContent = t("say");
      $("attention-words").textContent = attention.words || "";
    }
  }

  function showBanner(summary) {
    // A device that is down, said where players look: they can enter by hand meanwhile.
    const down = Object.keys(summary.sources || {}).filter(function (name) {
      return !summary.sources[name].up;
    });
    const banner = $("banner");
    banner.hidden = down.length === 0;
    banner.textContent = down.length === 0 ? "" : "\u26A0\uFE0E " + down.join(", ") +
      t("notConnected") + t("byHandBelow");
  }

  function showCorrection(correction) {
    $("correction").hidden = !correction;
    const list = $("correction-fields");
    list.textContent = "";
    if (!correction) { return; }
    $("keep-correction").hidden = correction.saved;
    correction.fields.forEach(function (field) {
      const item = document.createElement("li");
      item.textContent = field.field + ": " + JSON.stringify(field.kit) + " " + t("inKit") +
        ", " + JSON.stringify(field.seen) + " " + t("seen");
      list.appendChild(item);
    });
  }

  function showSources(sources) {
    const list = $("sources");
    list.textContent = "";
    Object.keys(sources).forEach(function (name) {
      const source = sources[name];
      const item = document.createElement("li");
      item.className = source.up ? "up" : "down";
      const parts = [name + ": " + (source.up ? "\u2713 " + t("up") : "\u26A0\uFE0E " + t("down"))];
      if (source.port) { parts.push(t("port") + " " + source.port); }
      if (source.boot) { parts.push(t("boot") + " " + source.boot); }
      if (source.heartbeat_age !== null && source.heartbeat_age !== undefined) {
        parts.push(t("heartbeat") + " " + source.heartbeat_age + t("secondsAgo"));
      }
      if (!source.up && source.problem) { parts.push(source.problem); }
      item.textContent = parts.join(" \u00B7 ");
      list.appendChild(item);
    });
  }

  // -- the board and the moves to enter ------------------------------------------------

  function moveButton(choice) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move";
    button.textContent = choice.words;
    button.dataset.move = JSON.stringify(choice.move);
    button.addEventListener("click", function () {
      change("/moves", { move: choice.move, seq: summary && summary.seq });
    });
    return button;
  }

  function drawPanel() {
    return fetch(api + "/panel?lang=" + lang)
      .then(function (answer) { return answer.json(); })
      .then(function (data) {
        panel = data;
        $("board").innerHTML = data.svg;  // drawn by the server from the state; escaped there
        taps = [];
        showTaps();
        showEntry();
      });
  }

  function showEntry() {
    const moves = $("moves");
    moves.textContent = "";
    if (!panel || !summary || summary.over) { $("entry").hidden = true; return; }
    let shown = [];
    if (summary.to_act === "chance") {
      shown = panel.chance;  // a die or lot with no device: entered by hand
      $("entry-head").textContent = t("byHand");
    } else {
      // Moves no tap on the board makes (a pass, a decision) are buttons; with a few
      // moves to choose from, every move is (the Uräus roll's moves, say).
      shown = panel.moves.length <= 12 ? panel.moves
        : panel.moves.filter(function (m) { return m.taps.length === 0; });
      $("entry-head").textContent = t("enter");
    }
    shown.forEach(function (choice) { moves.appendChild(moveButton(choice)); });
    $("entry").hidden = shown.length === 0;
  }

  function showTaps() {
    $("taps").textContent = taps.length ? t("tapped") + taps.join(" \u2192 ") : "";
    const places = document.querySelectorAll("#board .place");
    places.forEach(function (place) {
      place.classList.remove("hint", "tapped");
      if (taps.indexOf(place.dataset.place) >= 0) { place.classList.add("tapped"); }
    });
    $("board").classList.toggle("no-hints", !hints);
    if (!hints || !panel) { return; }
    // A hint marks the places that continue a legal move from the taps so far.
    const next = new Set();
    panel.moves.forEach(function (move) {
      const sofar = move.taps.slice(0, taps.length);
      if (move.taps.length > taps.length && sofar.join("\n") === taps.join("\n")) {
        next.add(move.taps[taps.length]);
      }
    });
    places.forEach(function (place) {
      if (next.has(place.dataset.place)) { place.classList.add("hint"); }
    });
  }

  $("board").addEventListener("click", function (event) {
    const place = event.target.closest(".place");
    if (!place) { return; }
    taps.push(place.dataset.place);
    showTaps();
    change("/taps", { taps: taps, seq: summary && summary.seq }).then(function (answer) {
      if (!answer || answer.status !== 200 || answer.data.complete) { taps = []; showTaps(); }
    });
  });

  // -- controls --------------------------------------------------------------------------

  $("lang").addEventListener("click", function () {
    lang = lang === "en" ? "de" : "en";
    localStorage.setItem("lang", lang);
    translate();
    if (summary) { show(summary); }
    redraw();
  });
  $("hints").checked = hints;
  $("hints").addEventListener("change", function () {
    hints = $("hints").checked;
    localStorage.setItem("hints", hints ? "1" : "0");
    showTaps();
  });
  $("dismiss").addEventListener("click", function () { change("/dismiss", {}); });
  $("end-turn").addEventListener("click", function () { change("/end-turn", {}); });
  $("undo").addEventListener("click", function () { change("/undo", {}); });
  $("keep-correction").addEventListener("click", function () { change("/kit-correction", {}); });

  let games = null;
  function fillNewGame() {
    const name = $("new-game-name").value;
    const game = games[name];
    const kits = game.kits[table] || ["default"];
    $("new-game-kit").textContent = "";
    kits.forEach(function (kit) { $("new-game-kit").add(new Option(kit, kit)); });
    const options = $("new-game-options");
    options.textContent = "";
    Object.keys(game.options).forEach(function (option) {
      const spec = game.options[option];
      const label = document.createElement("label");
      label.title = spec.doc;
      label.append(option + " ");
      const select = document.createElement("select");
      select.dataset.option = option;
      spec.choices.forEach(function (choice) {
        const item = new Option(JSON.stringify(choice), JSON.stringify(choice));
        item.selected = JSON.stringify(choice) === JSON.stringify(spec.default);
        select.add(item);
      });
      label.appendChild(select);
      options.appendChild(label);
    });
  }
  $("new-game").addEventListener("toggle", function () {
    if (!$("new-game").open || games) { return; }
    fetch("/api/games").then(function (a) { return a.json(); }).then(function (data) {
      games = data.games;
      Object.keys(games).forEach(function (name) {
        $("new-game-name").add(new Option(games[name].title, name));
      });
      $("new-game-name").value = summary.game;
      $("new-game-players").value = summary.players.join("\n");
      fillNewGame();
    });
  });
  $("new-game-name").addEventListener("change", fillNewGame);
  $("new-game-form").addEventListener("submit", function (event) {
    event.preventDefault();
    const options = {};
    document.querySelectorAll("#new-game-options select").forEach(function (select) {
      options[select.dataset.option] = JSON.parse(select.value);
    });
    const players = $("new-game-players").value.split("\n")
      .map(function (name) { return name.trim(); }).filter(Boolean);
    change("/games", { game: $("new-game-name").value, players: players, options: options,
      kit: $("new-game-kit").value }).then(function (answer) {
      if (answer && answer.status === 200) { location.reload(); }  // the seats may differ
    });
  });
  // The position editor: a draft changed one tap at a time on the server (which checks
  // every step against the rules), set as the table's position at the end.
  let draft = null;
  let editing = null;  // the place whose choices are shown

  function editStep(payload) {
    payload.draft = draft;
    payload.lang = lang;
    return change("/edit", payload).then(function (answer) {
      if (!answer || answer.status !== 200) { return; }
      const data = answer.data;
      draft = data.draft;
      $("position-text").value = JSON.stringify(draft, null, 1);
      $("editor").hidden = !data.editor;
      if (!data.editor) { $("notation").open = true; return; }
      $("editor-board").innerHTML = data.svg;  // drawn and escaped by the server
      showSettings(data.settings);
      const list = $("editor-choices");
      list.textContent = "";
      data.choices.forEach(function (choice) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = choice.label;
        button.addEventListener("click", function () {
          editStep({ place: editing, value: choice.value });
        });
        list.appendChild(button);
      });
      document.querySelectorAll("#editor-board .place").forEach(function (place) {
        place.classList.toggle("tapped", data.choices.length > 0 &&
          place.dataset.place === editing);
      });
    });
  }

  function showSettings(settings) {
    const box = $("editor-settings");
    box.textContent = "";
    settings.forEach(function (item) {
      const label = document.createElement("label");
      label.append(item.label + " ");
      const select = document.createElement("select");
      select.dataset.setting = item.name;
      if (item.value === null) { select.add(new Option("\u2014", "", true, true)); }
      item.choices.forEach(function (choice) {
        select.add(new Option(choice.label, choice.value, false, choice.value === item.value));
      });
      select.addEventListener("change", function () {
        editStep({ setting: item.name, value: select.value });
      });
      label.appendChild(select);
      box.appendChild(label);
    });
  }

  $("editor-board").addEventListener("click", function (event) {
    const place = event.target.closest(".place");
    if (!place) { return; }
    editing = place.dataset.place;
    editStep({ place: editing });
  });
  $("position").addEventListener("toggle", function () {
    if (!$("position").open) { return; }
    draft = null;
    editStep({});
  });
  $("position-text").addEventListener("change", function () {
    try { draft = JSON.parse($("position-text").value); editStep({}); }
    catch (error) { say(error.message); }
  });
  $("position-form").addEventListener("submit", function (event) {
    event.preventDefault();
    let position;
    try { position = JSON.parse($("position-text").value); }
    catch (error) { say(error.message); return; }
    change("/games", { position: position }).then(function (answer) {
      if (answer && answer.status === 200) { location.reload(); }
    });
  });

  // -- live -------------------------------------------------------------------------------

  // One panel request at a time, however fast events come; an event that arrives while
  // one is on its way asks for one more, so the board and the buttons never stay older
  // than the last event (the roll and the move it allows come a moment apart).
  let pending = false;
  let stale = false;
  function redraw() {
    if (pending) { stale = true; return; }
    pending = true;
    stale = false;
    drawPanel().finally(function () {
      pending = false;
      if (stale) { redraw(); }
    });
  }
  // The events come in the journal's order, each with the table as it was sent, so an
  // event's summary is always shown. An answer to /state (the page's first request, the
  // health poll) may arrive after an event newer than it: it never turns the page back.
  function current(next) { return !summary || next.seq >= summary.seq; }
  function refresh(next) {
    show(next);
    redraw();
  }

  const link = $("link");
  const events = new EventSource(api + "/events?since=" + body.dataset.seq);
  events.addEventListener("open", function () {
    link.textContent = t("live");
    link.classList.remove("down");
  });
  events.addEventListener("error", function () {
    link.textContent = t("reconnecting");
    link.classList.add("down");
  });
  ["move", "undo", "override", "flag", "input", "note"].forEach(function (kind) {
    events.addEventListener(kind, function (message) {
      const entry = JSON.parse(message.data);
      if (entry.kind === "note" && entry.table.players.length !== summary.players.length) {
        location.reload();  // another game with other seats began
        return;
      }
      refresh(entry.table);
    });
  });
  // The sources' health changes without a journal entry (a heartbeat, a link going down).
  setInterval(function () {
    fetch(api + "/state").then(function (a) { return a.json(); }).then(function (data) {
      if (current(data)) { show(data); }
    }).catch(function () {});
  }, 10000);

  translate();
  fetch(api + "/state").then(function (answer) { return answer.json(); }).then(function (data) {
    if (current(data)) { refresh(data); }
  });
})();
