"""Tables: one game each, its players, its engine with kit and options, its journal.

A table's state is always the replay of its journal, so a restart (or a power cut)
carries on where the table was. Changes go through ``Table.play`` and ``Table.undo``,
which journal them before they count.
"""

from __future__ import annotations

import os
import re
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.journal import Journal
from companion.tracker import COMPANION_RULES, Claim, Verdict, explain, forced_move, mover
from rules import CHANCE, GAMES, IllegalMove, RulesError, View, game_of, get_game, parse_state
from rules.catalogue import UnknownRule
from rules.catalogue import explain as rule_entry
from rules.kits import default_kit_path, kit_toml, load_kit


class ConfigError(ValueError):
    """A table configuration that cannot be used; names the field."""


@dataclass(frozen=True)
class TableConfig:
    id: str
    game: str
    players: tuple[str, ...]
    pin: str
    options: dict[str, Any] = field(default_factory=dict)
    kit: str | None = None  # a kit file; the shipped kit when None
    #: Serial devices by name (``die``, ``sensors``): a device path or ``usb:VID:PID``.
    devices: dict[str, str] = field(default_factory=dict)
    #: The camera: ``source`` (a frame source spec), ``profile`` (the appearance profile),
    #: optionally ``calibration`` and ``sheet``; paths relative to the configuration file.
    camera: dict[str, str] = field(default_factory=dict)


def read_config(path: str | Path) -> list[TableConfig]:
    """Tables from a TOML file: ``[[tables]]`` with id, game, players, pin, and
    optionally options (a table), kit (a file path) and devices (a table of ports)."""
    from companion.claims import DEVICES

    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not a readable configuration: {error}") from None
    tables = data.get("tables")
    if not isinstance(tables, list) or not tables:
        raise ConfigError(f"{path}: expected one or more [[tables]]")
    configs = []
    for i, raw in enumerate(tables):
        where = f"{path}: tables[{i}]"
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: expected a table of fields")
        fields = {"id", "game", "players", "pin", "options", "kit", "devices", "camera"}
        unknown = set(raw) - fields
        if unknown:
            raise ConfigError(f"{where}: unknown field {sorted(unknown)[0]!r}")
        for key in ("id", "game", "pin"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise ConfigError(f"{where}.{key}: expected text")
        if not TABLE_ID.fullmatch(raw["id"]):
            raise ConfigError(
                f"{where}.id: {raw['id']!r} is not a table id (letters, digits, - and _, "
                "up to 40, as it goes into addresses and file names)"
            )
        if raw["game"] not in GAMES:
            raise ConfigError(f"{where}.game: unknown game {raw['game']!r}")
        players = raw.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ConfigError(f"{where}.players: expected a list of names")
        devices = raw.get("devices", {})
        if not isinstance(devices, dict):
            raise ConfigError(f"{where}.devices: expected a table of device = port")
        for name, port in devices.items():
            if name not in DEVICES.get(raw["game"], {}):
                known = ", ".join(DEVICES.get(raw["game"], {})) or "none"
                raise ConfigError(
                    f"{where}.devices.{name}: {raw['game']} has no device {name!r} "
                    f"(its devices: {known})"
                )
            if not isinstance(port, str) or not port:
                raise ConfigError(f"{where}.devices.{name}: expected a path or usb:VID:PID")
        camera = read_camera(raw.get("camera"), f"{where}.camera", path.parent)
        configs.append(
            TableConfig(
                id=raw["id"],
                game=raw["game"],
                players=tuple(players),
                pin=raw["pin"],
                options=dict(raw.get("options", {})),
                kit=raw.get("kit"),
                devices=dict(devices),
                camera=camera,
            )
        )
    ids = [c.id for c in configs]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"{path}: table ids must differ")
    return configs


KIT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


def game_listing() -> dict[str, Any]:
    """Every game with its title, player range and named options (the open readings and
    variants, with the ``NOTES.md`` reading as default): what a tablet offers when a game
    is started, and what ``companion games --json`` prints."""
    return {
        name: {
            "title": game.title,
            "players": [game.min_players, game.max_players],
            "options": {
                spec.name: {
                    "default": spec.default,
                    "choices": list(spec.choices),
                    "doc": spec.doc,
                    "source": spec.source,
                }
                for spec in game.option_specs
            },
        }
        for name, game in GAMES.items()
    }


def read_camera(raw: Any, where: str, folder: Path) -> dict[str, str]:
    """A table's ``camera`` sub-table, its files made absolute from ``folder``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a table with source and profile")
    unknown = set(raw) - {"source", "profile", "calibration", "sheet"}
    if unknown:
        raise ConfigError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    for key in ("source", "profile"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ConfigError(f"{where}.{key}: expected text")
    camera = {"source": raw["source"]}
    for key in ("profile", "calibration", "sheet"):
        if key in raw:
            if not isinstance(raw[key], str) or not raw[key]:
                raise ConfigError(f"{where}.{key}: expected a file name")
            camera[key] = str(folder / raw[key])
    return camera


class Table:
    """One table: its current game, replayed from the journal, and the tracker's view of
    it (a flag held, a question asked, the moves of the turn still open)."""

    def __init__(self, config: TableConfig, journal: Journal) -> None:
        self.config = config
        self.journal = journal
        self.lock = threading.RLock()
        self.on_change: Callable[[], None] = lambda: None  # the service's live streams
        #: The table's input sources by name, each reporting its health (a die's link).
        self.sources: dict[str, Callable[[], dict[str, Any]]] = {}
        #: When a person last changed something on a tablet (the service's clock).
        self.touched = 0.0
        #: The table's camera, when it has one (``companion.camera_source``).
        self.camera: Any = None
        game_id = journal.current_game(config.id)
        if game_id is None:
            game = get_game(config.game)
            game_id = journal.start_game(config.id, self._fresh_state(game), config.players)
        self._load(game_id)

    def _load(self, game_id: int) -> None:
        """Make ``game_id`` the table's game, rebuilt from the journal: its state, and
        what the tracker knew (a flag held, a question asked, the turn still open), so
        that a restart after a power cut carries on exactly where the table was."""
        name = next(g for i, _, g in self.journal.games(self.config.id) if i == game_id)
        game = get_game(name)
        entries = self.journal.entries(game_id)
        try:
            self.game, self.game_id = game, game_id
            self._fold(self.journal.initial(game_id), entries)
        except RulesError as error:
            raise ConfigError(
                f"table {self.config.id!r}: its journal does not replay: {error}"
            ) from None
        # Games recorded before schema 2 carry no names: they are the configuration's.
        players = self.journal.players(game_id) or self.config.players
        seats = game.seats(self.state)
        if seats != len(players):
            raise ConfigError(
                f"table {self.config.id!r}: the journal's game ({game.name}, {seats} seats) "
                f"does not match its players ({len(players)}: {', '.join(players)})"
            )
        self.players = players
        self.seq = entries[-1].seq if entries else 0

    def _fold(self, initial: Any, entries: list[Any]) -> None:
        """Replay entries as ``_act`` and the changes wrote them."""
        game = self.game
        state, history = initial, []
        #: What the table must look at: a flag held, a question, a word (or None).
        self.attention: dict[str, Any] | None = None
        #: The states before each move of the turn still open, for take-backs.
        self.turn: list[Any] = []
        self.turn_seat: int | None = None
        for entry in entries:
            data = entry.data
            if entry.kind == "move":
                move = game.move_from_json(data)
                self._open_turn(mover(game, state, move), state)
                history.append((state, move))
                state, self.attention = game.play(state, move), None
            elif entry.kind == "undo":
                if history:
                    state = history.pop()[0]
                if data.get("take_back") and self.turn:
                    self.turn.pop()
                else:
                    self.turn, self.turn_seat = [], None
                self.attention = None
            elif entry.kind == "flag":
                self.attention = flag_attention(data)
            elif entry.kind == "override":
                self.attention = None
            elif entry.kind == "input":
                if "question" in data:
                    self.attention = {"kind": "question", "source": data["source"],
                                      "choices": data["question"]}  # fmt: skip
                elif "say" in data:
                    self.attention = {"kind": "say", "source": data["source"],
                                      "words": data["say"]}  # fmt: skip
                elif data.get("event") == "put right":
                    self.attention = None
                elif data.get("event") == "end turn":
                    self.turn, self.turn_seat = [], None
        self.state = state
        self.last = words_of(game, *history[-1]) if history else None

    def _open_turn(self, seat: int | None, before: Any) -> None:
        """A move by ``seat`` from ``before``: the turn it belongs to stays open for a
        take-back until the next seat (or chance) acts or a player ends it."""
        if seat is None or seat != self.turn_seat:
            self.turn = []
        self.turn_seat = seat
        if seat is not None:
            self.turn.append(before)

    # -- claims: what the sources saw -------------------------------------------------

    def explain(self, claim: Claim) -> tuple[Any, Verdict]:
        """What the rules would make of ``claim`` now, without acting on it: the state
        it was explained against and the verdict (``tracker.explain``)."""
        with self.lock:
            before = self.turn[-1] if self.turn else None
            return self.state, explain(self.game, self.state, claim, before)

    def claim(self, claim: Claim | Callable[[Any], Claim | None]) -> Verdict | None:
        """Explain a source's claim by the rules and act on the verdict (``tracker``).
        A claim that depends on the state (a die roll means a roll only when one is due)
        may come as a function of the state, called under the table's lock."""
        with self.lock:
            if not isinstance(claim, Claim):
                claim = claim(self.state)
                if claim is None:
                    return None
            before = self.turn[-1] if self.turn else None
            verdict = explain(self.game, self.state, claim, before)
            self._act(claim, verdict)
        self.on_change()
        return verdict

    def _act(self, claim: Claim, verdict: Verdict) -> None:
        source = claim.source
        if verdict.kind == "move":
            assert verdict.move is not None
            if claim.seen is not None:
                self._record("input", {"source": source, "seen": claim.seen})
            self._accept(verdict.move)
            # After the die, a player with one possible move makes it: the table too.
            while verdict.move.chance and (forced := forced_move(self.game, self.state)):
                self._accept(forced)
        elif verdict.kind == "question":
            choices = [self._choice(m) for m in verdict.choices]
            self._record("input", {"source": source, "seen": claim.seen, "question": choices})
            self.attention = {"kind": "question", "source": source, "choices": choices}
        elif verdict.kind == "flag":
            assert verdict.violation is not None
            move = None if verdict.move is None else self.game.move_to_json(verdict.move)
            rule = verdict.violation.rule
            data = {"move": move, "rule": rule, "words": rule_words(rule)["words"],
                    "detail": verdict.violation.detail, "source": source,
                    "seen": claim.seen}  # fmt: skip
            self._record("flag", data)
            self.attention = flag_attention(data)
        elif verdict.kind == "take-back":
            self._record("undo", {"take_back": True, "source": source})
            self.state = self.turn.pop()
            self.last = self._last_move_words()
            self.attention = None
        elif verdict.kind == "unchanged":
            # The table is put right: what this source flagged or asked is settled. What
            # another raised (a move tapped on a tablet against the rules) is not: the
            # board seen as it was says nothing about it.
            if self.attention is not None and self.attention.get("source") == source:
                self._record("input", {"source": source, "event": "put right"})
                self.attention = None
        elif verdict.kind == "say" and verdict.say:
            self._record("input", {"source": source, "seen": claim.seen, "say": verdict.say})
            self.attention = {"kind": "say", "source": source, "words": verdict.say}

    def _accept(self, move: Any) -> None:
        """Journal and apply a legal move; the turn it belongs to stays open for a
        take-back until the next seat (or chance) acts or a player ends it."""
        words = words_of(self.game, self.state, move)
        after = self.game.play(self.state, move)
        self._record("move", self.game.move_to_json(move))
        self._open_turn(mover(self.game, self.state, move), self.state)
        self.state, self.last, self.attention = after, words, None

    def _record(self, kind: str, data: Any) -> None:
        self.seq = self.journal.append(self.game_id, kind, data)

    def _choice(self, move: Any) -> dict[str, Any]:
        words = words_of(self.game, self.state, move)
        return {"move": self.game.move_to_json(move), "words": words["en"], "words_de": words["de"]}

    # -- changes from a tablet ----------------------------------------------------------

    def play(self, document: Any, expected: int | None = None, source: str = "tablet") -> int:
        """Play a move given in the notation; journal it; return the new ``seq``.
        An illegal move is journalled as a flag and raised. With ``expected``, a table
        that has moved on since refuses the move (``Stale``)."""
        with self.lock:
            self._check_seq(expected)
            move = self.game.move_from_json(document)  # NotationError: malformed
            verdict = explain(self.game, self.state, Claim(source, moves=(move,)))
            where = self.game.where(self.state)
            self._act(Claim(source, moves=(move,)), verdict)
            seq = self.seq
        self.on_change()
        if verdict.kind == "flag":
            assert verdict.violation is not None
            raise IllegalMove(verdict.violation.rule, self.game.move_text(move),
                              verdict.violation.detail, where=where)  # fmt: skip
        return seq

    def end_turn(self, expected: int | None = None) -> int:
        """A player taps that the turn is over: its moves can no longer be taken back."""
        with self.lock:
            self._check_seq(expected)
            self._record("input", {"source": "tablet", "event": "end turn"})
            self.turn, self.turn_seat = [], None
        self.on_change()
        return self.seq

    def dismiss(self, expected: int | None = None) -> int:
        """A player overrides what the table was asked to look at (a flag held, a
        question): the game goes on from its last legal state."""
        with self.lock:
            self._check_seq(expected)
            if self.attention is None:
                raise IllegalUndo("there is nothing to dismiss")
            self._record("override", {"dismissed": self.attention})
            self.attention = None
        self.on_change()
        return self.seq

    def undo(self, expected: int | None = None) -> int:
        with self.lock:
            self._check_seq(expected)
            if not self.journal.moves(self.game_id):
                raise IllegalUndo("there is no move to take back")
            self._record("undo", {})
            self.state = self.journal.replay(self.game_id)
            self.last = self._last_move_words()
            self.turn, self.turn_seat, self.attention = [], None, None
        self.on_change()
        return self.seq

    def new_game(
        self,
        game: str | None = None,
        players: tuple[str, ...] | None = None,
        options: dict[str, Any] | None = None,
        kit: str | None = None,
        position: Any = None,
        expected: int | None = None,
    ) -> int:
        """Start the next game at this table (the finished one stays on record). What is
        not chosen stays as it was: the same game, players and options; the kit is the
        table's own corrected one if play has corrected it, else the current game's.
        ``kit`` is a kit file's path; ``position``, a state in the notation, joins a
        game already in progress."""
        with self.lock:
            self._check_seq(expected)
            if position is not None and game is None:
                game = game_of(parse_state(position)).name  # the position says its game
            engine = get_game(game or self.game.name)
            same = engine is self.game
            players = tuple(players) if players is not None else self.players
            if position is not None:
                state = parse_position(engine, position)
            else:
                if options is None and same:
                    options = dict(self.state.options)
                loaded = None
                if kit is None and same and self._own_kit(engine.name) is None:
                    loaded = self.state.kit
                state = self._fresh_state(engine, options, kit, len(players), loaded)
            if engine.seats(state) != len(players):
                raise ConfigError(
                    f"{engine.title} at this table has {engine.seats(state)} seats, "
                    f"but {len(players)} players were named"
                )
            game_id = self.journal.start_game(self.config.id, state, players)
            self._load(game_id)
            event = "position set" if position is not None else "new game"
            self._record("note", {"event": event})
        self.on_change()
        return self.seq

    def kits(self, game: str) -> dict[str, str | None]:
        """The kits a game can start with at this table, by name: the shipped one
        (``default``), the configured one (``configured``), and the kit files of the
        instance folder's ``kits/GAME/`` (a user's own copy, a corrected one)."""
        kits: dict[str, str | None] = {"default": str(default_kit_path(game))}
        if game == self.config.game and self.config.kit:
            kits["configured"] = self.config.kit
        folder = self.journal.path.parent / "kits" / game
        if folder.is_dir():
            for path in sorted(folder.glob("*.toml")):
                if KIT_NAME.fullmatch(path.stem) and path.stem not in ("default", "configured"):
                    kits[path.stem] = str(path)
        return kits

    def _own_kit(self, game: str) -> str | None:
        """The table's own kit file for ``game``, written when play corrected a kit."""
        own = self.journal.path.parent / "kits" / game / f"{self.config.id}.toml"
        return str(own) if own.is_file() else None

    def _configured_kit(self, game: str) -> str | None:
        """The kit a game starts with when none is chosen nor carried on: the table's own
        corrected kit, else the configured one, else (``None``) the shipped one."""
        own = self._own_kit(game)
        if own is not None:
            return own
        return self.config.kit if game == self.config.game else None

    def kit_correction(self) -> dict[str, Any] | None:
        """What play has shown the kit to get wrong (the sensors win over the kit), as
        the kit file's fields with the kit's value and the one seen; ``None`` if nothing."""
        corrected = self.game.corrected_kit(self.state)
        if corrected is None:
            return None
        before = self.game.kit_to_json(self.state.kit)
        after = self.game.kit_to_json(corrected)
        # Already kept: the table's own kit file says what play has shown (its name aside).
        own = self._own_kit(self.game.name)
        kept = own is not None and {
            **self.game.kit_to_json(load_kit(self.game.name, own)),
            "name": None,
        } == {**after, "name": None}
        return {"kit": before.get("name"), "fields": differences(before, after), "saved": kept}

    def _kit_json(self, path: str) -> dict[str, Any]:
        """A kit file's JSON form, read again only when the file changes (every live
        stream asks for the summary at every change)."""
        stamp = (path, Path(path).stat().st_mtime_ns)
        if getattr(self, "_kit_cache", (None,))[0] != stamp:
            self._kit_cache = (stamp, self.game.kit_to_json(load_kit(self.game.name, path)))
        return self._kit_cache[1]

    def save_kit_correction(self, expected: int | None = None) -> str:
        """Write the corrected kit as this table's own kit file (``kits/GAME/ID.toml`` in
        the instance folder), which the table's next games start with; return its path."""
        with self.lock:
            self._check_seq(expected)
            corrected = self.game.corrected_kit(self.state)
            if corrected is None:
                raise IllegalUndo("play has contradicted nothing in the kit: nothing to correct")
            data = self.game.kit_to_json(corrected)
            fields = differences(self.game.kit_to_json(self.state.kit), data)
            data["name"] = f"{data.get('name', 'kit')}-corrected-{self.config.id}"
            folder = self.journal.path.parent / "kits" / self.game.name
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{self.config.id}.toml"
            note = (f"The kit {self.state.kit.name!r} corrected by what table "
                    f"{self.config.id!r} saw in play:\n" + "\n".join(
                        f"  {f['field']}: {f['kit']!r} in the kit, {f['seen']!r} seen"
                        for f in fields))  # fmt: skip
            temporary = path.with_suffix(".toml.new")
            with temporary.open("w", encoding="utf-8") as out:
                out.write(kit_toml(data, note))
                out.flush()
                os.fsync(out.fileno())  # on disk before the journal says it is there
            temporary.replace(path)  # whole or not at all
            name = str(path.relative_to(self.journal.path.parent))
            self._record("note", {"event": "kit corrected", "file": name, "fields": fields})
        self.on_change()
        return name

    def _fresh_state(
        self,
        game: Any,
        options: dict[str, Any] | None = None,
        kit: str | None = None,
        players: int | None = None,
        loaded: Any = None,
    ) -> Any:
        same = game.name == self.config.game
        try:
            if loaded is None:
                path = kit if kit is not None else self._configured_kit(game.name)
                loaded = load_kit(game.name, path)
            chosen = options if options is not None else (self.config.options if same else {})
            count = players if players is not None else len(self.config.players)
            return game.new(count, chosen, loaded, View.TABLE)
        except RulesError as error:
            raise ConfigError(f"table {self.config.id!r}: {error}") from None

    def _check_seq(self, expected: int | None) -> None:
        # Under the table's lock: two tablets acting on one state cannot both win.
        if expected is not None and expected != self.seq:
            raise Stale(f"stale: the table is at seq {self.seq}, not {expected!r}")

    # -- views ------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        with self.lock:
            actor = self.game.to_act(self.state)
            outcome = self.game.outcome(self.state)
            return {
                "id": self.config.id,
                "game": self.game.name,
                "title": self.game.title,
                "players": list(self.players),
                "colours": [
                    self.game.seat_colour(self.state, seat) for seat in range(len(self.players))
                ],
                "scores": list(self.game.scores(self.state)),
                "to_act": actor
                if isinstance(actor, int)
                else (None if actor is None else "chance"),
                "over": outcome is not None,
                "outcome": None if outcome is None else outcome.to_json(),
                "last_move": None if self.last is None else self.last["en"],
                "last_move_de": None if self.last is None else self.last["de"],
                "waiting_for": None
                if actor is not CHANCE
                else {lang: self.game.chance_name(self.state, lang) for lang in ("en", "de")},
                "attention": self.attention,
                "kit_correction": self.kit_correction(),
                "turn_open": bool(self.turn),
                "seq": self.seq,
                "sources": {name: health() for name, health in self.sources.items()},
            }

    def detail(self) -> dict[str, Any]:
        with self.lock:  # the summary and the state of one moment
            summary = self.summary()
            summary["state"] = self.game.state_to_json(self.state)
            summary["legal_moves"] = [
                self.game.move_to_json(m) for m in self.game.legal_moves(self.state)
            ]
            summary["chance"] = [
                self.game.move_to_json(m) for m, _ in self.game.chance_outcomes(self.state)
            ]
        return summary

    def _last_move_words(self) -> dict[str, str] | None:
        moves = self.journal.moves(self.game_id)
        if not moves:
            return None
        state = self.journal.initial(self.game_id)
        for document in moves[:-1]:
            state = self.game.play(state, self.game.move_from_json(document))
        return words_of(self.game, state, self.game.move_from_json(moves[-1]))


def words_of(game: Any, state: Any, move: Any) -> dict[str, str]:
    """A move in words, in English and German."""
    return {lang: game.describe(state, move, lang) for lang in ("en", "de")}


def differences(before: Any, after: Any, path: str = "") -> list[dict[str, Any]]:
    """The fields where two kits' JSON forms differ, with both values."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in before.keys() | after.keys():
            field = f"{path}.{key}" if path else key
            found += differences(before.get(key), after.get(key), field)
        return sorted(found, key=lambda f: f["field"])
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [f for i, (b, a) in enumerate(zip(before, after, strict=True))
                for f in differences(b, a, f"{path}[{i}]")]  # fmt: skip
    return [] if before == after else [{"field": path, "kit": before, "seen": after}]


def parse_position(game: Any, document: Any) -> Any:
    """A position typed into the tablet's editor, in the notation, for ``game``."""
    state = parse_state(document)
    if game_of(state) is not game:
        raise ConfigError(f"the position is a {game_of(state).title} position, not {game.title}")
    return state


class IllegalUndo(ValueError):
    """An undo with nothing to take back."""


class Stale(ValueError):
    """A change that names a seq the table has moved past."""


def flag_words(error: IllegalMove) -> dict[str, Any]:
    """What the tablet shows for an illegal move: the rule in words and its source."""
    return {"message": str(error), **rule_words(error.rule)}


def flag_attention(data: dict[str, Any]) -> dict[str, Any]:
    """The flag a table holds, from its journal entry: the rule in words and its source."""
    try:
        words = rule_words(data["rule"])
    except UnknownRule:  # a rule id a later version retired: its recorded words remain
        words = {"rule": data["rule"], "words": data.get("words"), "german": None,
                 "rulebook": None, "heading": None}  # fmt: skip
    return {
        "kind": "flag",
        "source": data.get("source"),
        "move": data.get("move"),
        "detail": data.get("detail"),
        **words,
    }


def rule_words(rule: str) -> dict[str, Any]:
    """A rule id in words, English and German, with the rulebook and heading it comes
    from; the companion's own rules (a change no move explains) have no rulebook."""
    if rule in COMPANION_RULES:
        english, german = COMPANION_RULES[rule]
        return {"rule": rule, "words": english, "german": german, "rulebook": None,
                "heading": None}  # fmt: skip
    entry = rule_entry(rule)
    return {"rule": rule, "words": entry.rule, "german": entry.german,
            "rulebook": entry.rulebook, "heading": entry.heading}  # fmt: skip
