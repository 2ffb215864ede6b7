// The scoreboard follows the table's live event stream; a reconnecting browser sends
// the last event id it saw and catches up from there (server-sent events do that).
"use strict";
(function () {
  const body = document.body;
  const table = body.dataset.table;
  const since = body.dataset.seq;
  const link = document.getElementById("link");

  function show(summary) {
    document.querySelectorAll("#players li").forEach(function (item) {
      const seat = Number(item.dataset.seat);
      item.querySelector(".score").textContent = summary.scores[seat];
      item.classList.toggle("to-act", summary.to_act === seat);
    });
    const turn = document.getElementById("turn");
    if (summary.over) {
      turn.textContent = "Game over: " + summary.outcome.detail;
    } else if (summary.to_act === "chance") {
      turn.textContent = "Waiting for the die or the lot.";
    } else {
      turn.textContent = summary.players[summary.to_act] + " to act.";
    }
    document.getElementById("last").textContent = summary.last_move || "No move yet.";
  }

  function flag(text) {
    const box = document.getElementById("flag");
    document.getElementById("flag-words").textContent = text;
    box.hidden = !text;
  }

  const events = new EventSource("/api/tables/" + encodeURIComponent(table) + "/events?since=" + since);
  events.addEventListener("open", function () { link.textContent = "Live"; link.classList.remove("down"); });
  events.addEventListener("error", function () { link.textContent = "Reconnecting"; link.classList.add("down"); });
  ["move", "undo", "override"].forEach(function (kind) {
    events.addEventListener(kind, function (message) {
      show(JSON.parse(message.data).table);
      flag("");
    });
  });
  events.addEventListener("flag", function (message) {
    const entry = JSON.parse(message.data);
    show(entry.table);
    flag("Not allowed: " + (entry.data.words || entry.data.rule));
  });
  fetch("/api/tables/" + encodeURIComponent(table) + "/state")
    .then(function (answer) { return answer.json(); })
    .then(show);
})();
