"""The ``companion`` command.

Subcommands and their options, and the JSON they print, are a contract (``docs/cli.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from rules import GAMES, RulesError, View, get_game
from rules.kits import load_kit
from rules.notation import dumps


class UsageError(ValueError):
    """A command-line argument that cannot be used."""


def parse_option(text: str) -> tuple[str, Any]:
    """``NAME=VALUE``; the value is read as JSON when it can be (true, 3), else as text."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise UsageError(f"--option expects NAME=VALUE, got {text!r}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return name, value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="The table companion: rules engines, simulations and (later) the service.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    games = commands.add_parser("games", help="list the games, their players and options")
    games.add_argument("--json", action="store_true", help="print one JSON object")

    sim = commands.add_parser("simulate", help="play seeded random legal games and summarise")
    sim.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    sim.add_argument("--players", type=int, help="number of players (default: the least)")
    sim.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sim.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option, repeatable (see `companion games`)",
    )
    sim.add_argument("--kit", help="a kit file (default: the shipped kit)")
    sim.add_argument("--view", choices=[v.value for v in View], default="full", help="default full")
    sim.add_argument(
        "--ply-limit", type=int, default=10_000, help="stop a game after this many moves"
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    sim.add_argument("--show", action="store_true", help="print every move and the board")
    sim.add_argument("--delay", type=float, default=0.0, help="seconds between shown moves")
    score = commands.add_parser(
        "score", help="the count of a game's state (Horus: per player and region)"
    )
    score.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    score.add_argument("state", help="a state document (JSON, the notation)")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    emulate = commands.add_parser(
        "emulate", help="run a serial device emulator on a new pseudo-terminal"
    )
    emulate.add_argument("device", choices=["die", "regie"])
    emulate.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    emulate.add_argument("--link", help="also make this path a symbolic link to the terminal")
    emulate.add_argument(
        "--faults",
        help="faults to inject: all, or some of garbage,flip,drop,duplicate,reboot,unplug",
    )
    emulate.add_argument("--interval", type=float, default=0.5, help="seconds between events")
    emulate.add_argument("--count", type=int, help="stop acting after this many throws or moves")
    emulate.add_argument(
        "--script", help="the die's throws in order, e.g. 6,1,crooked,4 (then seeded random)"
    )

    serve = commands.add_parser("serve", help="run the service: tables, journal, web app")
    serve.add_argument("--config", help="the tables' TOML configuration")
    serve.add_argument("--demo", action="store_true", help="bots and emulated devices")
    serve.add_argument("--pace", type=float, default=1.0, help="demo: seconds between moves")
    serve.add_argument(
        "--human",
        action="append",
        default=[],
        metavar="TABLE:SEAT",
        help="demo: a seat the bots leave to you (enter its moves on the tablet), repeatable",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--instance", default="instance", help="folder for the journal")
    serve.add_argument("--threads", type=int, help="server threads (default: sized per table)")

    calibrate = commands.add_parser("calibrate", help="calibrate the camera or learn a board")
    calibrate_commands = calibrate.add_subparsers(dest="calibrate_command", required=True)
    camera = calibrate_commands.add_parser(
        "camera", help="the camera's intrinsics from photos of a chessboard or ChArUco board"
    )
    camera.add_argument("images", nargs="+", help="the photos (10 to 20, the pattern all over)")
    camera.add_argument("--pattern", required=True, help="inner corners (ChArUco: squares), 9x6")
    camera.add_argument("--square-mm", type=float, required=True, help="a square's side in mm")
    camera.add_argument("--fix-aspect", action="store_true", help="keep fx = fy")
    camera.add_argument("--charuco", action="store_true", help="a ChArUco board")
    camera.add_argument("--marker-mm", type=float, help="ChArUco: a marker's side in mm")
    camera.add_argument("--out", required=True, help="the calibration file to write (JSON)")
    camera.add_argument("--json", action="store_true", help="print the file's JSON only")

    board = calibrate_commands.add_parser(
        "board", help="learn what a copy's board and pieces look like from its photos"
    )
    board.add_argument("game", help="the game (its marker sheet and reference set-up)")
    board.add_argument("images", nargs="+", help="the empty board's photo, then the set-up's "
                       "(one or more, the pieces turned a little between photos)")  # fmt: skip
    board.add_argument("--turned", nargs="+", action="extend", default=[], metavar="PHOTO",
                       help="photos of the set-up turned half a turn: each piece on the "
                            "square opposite its own (docs/calibration.md)")  # fmt: skip
    board.add_argument("--out", required=True, help="the profile to write (JSON)")
    board.add_argument("--camera", help="the camera calibration file (companion calibrate camera)")
    board.add_argument("--sheet", help="a marker sheet file (default: the game's shipped sheet)")
    board.add_argument("--pieces", help="the pieces' shapes file (default: the game's shipped "
                       "one, calibration/pieces/GAME.toml)")  # fmt: skip

    sheet = commands.add_parser("markers", help="write a game's printable marker sheet")
    sheet.add_argument("game", help="the game")
    sheet.add_argument("--out", required=True, help="the file: .png or .pdf")
    sheet.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    sheet.add_argument("--sheet", help="a marker sheet file (default: the game's shipped sheet)")

    camera_check = commands.add_parser("camera", help="the camera at the table")
    camera_commands = camera_check.add_subparsers(dest="camera_command", required=True)
    check = camera_commands.add_parser(
        "check", help="find the board in a frame; write it square-on with the grid over it"
    )
    check.add_argument("game", help="the game on the table (its marker sheet)")
    check.add_argument("--source", default="v4l2:0", help="frame source (default v4l2:0)")
    check.add_argument("--calibration", help="the camera calibration file")
    check.add_argument("--sheet", help="a marker sheet file (default: the game's shipped sheet)")
    check.add_argument("--out", default="camera-check.png", help="the picture to write")
    check.add_argument("--json", action="store_true", help="print one JSON object")

    render = commands.add_parser("render", help="render frames a camera would see, with truth")
    render.add_argument("game", help="the game to draw")
    render.add_argument("--seed", type=int, default=1, help="the table and its series (default 1)")
    render.add_argument("--count", type=int, help="frames to render (default 10; board: 2, "
                        "the empty board's photo and one of the set-up)")  # fmt: skip
    render.add_argument("--out", required=True, help="the folder to write frames and truth into")
    render.add_argument(
        "--kind",
        choices=["play", "board", "calibration"],
        default="play",
        help="play positions, the board photos (empty, then set-up), or calibration photos",
    )
    render.add_argument("--turned", type=int, default=0, metavar="N",
                        help="board: the last N set-up photos of the set-up turned half a "
                             "turn (default 0)")  # fmt: skip

    reading = commands.add_parser("read", help="read board photos: what stands where")
    reading.add_argument("game", help="the game on the photos")
    reading.add_argument("images", nargs="+", help="the photos or frames")
    reading.add_argument("--calibration", required=True,
                         help="the appearance profile (companion calibrate board)")  # fmt: skip
    reading.add_argument("--camera", help="the camera calibration file")
    reading.add_argument("--sheet", help="a marker sheet file (default: the game's shipped sheet)")
    reading.add_argument("--json", action="store_true", help="one JSON object a line (default)")
    reading.add_argument("--text", action="store_true", help="a line of words per photo instead")
    reading.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                         help="a game option, repeatable (see `companion games`): "
                              "the rules say how many of each piece the board holds")  # fmt: skip

    journal = commands.add_parser("journal", help="the journal: games, export, import, backup")
    journal_commands = journal.add_subparsers(dest="journal_command", required=True)
    listing = journal_commands.add_parser("games", help="list the journal's games")
    export = journal_commands.add_parser("export", help="print a game as a JSON record")
    export.add_argument("game", type=int, help="the game's id (see `companion journal games`)")
    imported = journal_commands.add_parser("import", help="replay a JSON record at a table")
    imported.add_argument("table", help="the table id the game is played at")
    imported.add_argument("record", help="the record file (from `companion journal export`)")
    backup = journal_commands.add_parser("backup", help="copy the journal while it is in use")
    backup.add_argument("destination", help="the new file to write")
    for sub in (listing, export, imported, backup):
        sub.add_argument("--instance", default="instance", help="the service's instance folder")
    listing.add_argument("--json", action="store_true", help="print one JSON object")

    devices = commands.add_parser("devices", help="serial devices")
    device_commands = devices.add_subparsers(dest="devices_command", required=True)
    watch = device_commands.add_parser("watch", help="print a device's hello and events")
    watch.add_argument("port", help="the serial port's path (a /dev/serial/by-id name or a link)")
    watch.add_argument("--count", type=int, help="stop after this many events")
    watch.add_argument("--json", action="store_true", help="one JSON object a line")
    watch.add_argument("--kind", choices=["die", "regie"], help="accept only this kind")
    watch.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds to wait after opening, for a board that resets when its port opens",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "games":
            return run_games(args)
        if args.command == "score":
            return run_score(args)
        if args.command == "emulate":
            from companion.devices import emulate

            if args.interval <= 0:
                raise UsageError(f"--interval must be above 0, got {args.interval}")
            return emulate(
                args.device,
                seed=args.seed,
                link=args.link,
                faults=args.faults,
                interval=args.interval,
                count=args.count,
                out=sys.stdout,
                script=args.script,
            )
        if args.command == "serve":
            from companion.serve import serve

            return serve(args.config, host=args.host, port=args.port, instance=args.instance,
                         threads=args.threads, out=sys.stdout, demo=args.demo,
                         pace=args.pace, humans=tuple(args.human))  # fmt: skip
        if args.command == "render":
            from vision.render.command import render_command

            count = args.count if args.count is not None else 2 if args.kind == "board" else 10
            return render_command(args.game, seed=args.seed, count=count, out=args.out,
                                  stream=sys.stdout, kind=args.kind,
                                  turned=args.turned)  # fmt: skip
        if args.command == "read":
            from companion import camera

            return camera.read_images(
                args.game, args.images, profile=args.calibration, camera=args.camera,
                sheet=args.sheet, stream=sys.stdout, as_json=not args.text,
                options=dict(parse_option(text) for text in args.option),
            )  # fmt: skip
        if args.command == "markers":
            from companion import camera

            return camera.markers(args.game, out=args.out, dpi=args.dpi, sheet=args.sheet,
                                  stream=sys.stdout)  # fmt: skip
        if args.command == "camera":
            from companion import camera

            return camera.camera_check(
                args.game, source=args.source, calibration=args.calibration,
                sheet=args.sheet, out=args.out, stream=sys.stdout, as_json=args.json,
            )  # fmt: skip
        if args.command == "calibrate" and args.calibrate_command == "board":
            from companion import camera

            return camera.calibrate_board(args.game, args.images, out=args.out,
                                          camera=args.camera, sheet=args.sheet,
                                          pieces=args.pieces, turned=args.turned,
                                          stream=sys.stdout)  # fmt: skip
        if args.command == "calibrate":
            from companion import camera

            return camera.calibrate_camera(
                args.images, pattern=args.pattern, square_mm=args.square_mm,
                fix_aspect=args.fix_aspect, charuco=args.charuco, marker_mm=args.marker_mm,
                out=args.out, stream=sys.stdout, as_json=args.json,
            )  # fmt: skip
        if args.command == "journal":
            from companion import records

            if args.journal_command == "games":
                return records.list_games(args.instance, sys.stdout, as_json=args.json)
            if args.journal_command == "export":
                return records.export_game(args.instance, args.game, sys.stdout)
            if args.journal_command == "import":
                return records.import_game(args.instance, args.table, args.record, sys.stdout)
            return records.backup(args.instance, args.destination, sys.stdout)
        if args.command == "devices":
            from companion.devices import watch

            if args.count is not None and args.count < 1:
                raise UsageError(f"--count must be at least 1, got {args.count}")
            return watch(args.port, count=args.count, as_json=args.json, kind=args.kind,
                         out=sys.stdout, settle=args.settle)  # fmt: skip
        return run_simulate(args)
    except (RulesError, UsageError, ValueError, OSError) as error:
        print(f"companion: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def run_games(args: argparse.Namespace) -> int:
    from companion.tables import game_listing

    listing = game_listing()
    if args.json:
        print(dumps(listing))
        return 0
    for name, entry in listing.items():
        low, high = entry["players"]
        players = str(low) if low == high else f"{low}-{high}"
        print(f"{name}: {entry['title']}, {players} players")
        for option, spec in entry["options"].items():
            choices = " | ".join(json.dumps(c) for c in spec["choices"])
            print(f"  --option {option}=...  {choices}  (default {json.dumps(spec['default'])})")
            print(f"      {spec['doc']}")
    return 0


def run_score(args: argparse.Namespace) -> int:
    """Print the count of a state: the scores, and for Horus the final count's
    breakdown per player and region."""
    from pathlib import Path

    from rules import NotationError, game_of, parse_state

    game = get_game(args.game)
    try:
        state = parse_state(Path(args.state).read_bytes())
    except NotationError as error:  # say which file: the parser knows only the text
        raise UsageError(f"{args.state}: {error}") from None
    if game_of(state) is not game:
        raise UsageError(f"{args.state} holds a {game_of(state).name} state, not {game.name}")
    if game.name == "horus":
        from rules.horus import breakdown

        report = breakdown(state)
    else:
        report = {"game": game.name, "final": game.is_over(state),
                  "scores": list(game.scores(state))}  # fmt: skip
    if args.json:
        print(dumps(report))
        return 0
    final = "final count" if report["final"] else "count so far"
    print(f"{game.name}: {final}: " + ", ".join(
        f"seat {seat} {score}" for seat, score in enumerate(report["scores"])))  # fmt: skip
    for region in report.get("regions", ()):
        x, y = region["tiles"][0]
        marks = [word for word, key in (("temple x2", "temple"), ("island x2", "island"),
                                        ("capped at 10", "capped")) if region[key]]  # fmt: skip
        owners = ", ".join(f"seat {s}" for s in region["controllers"]) or "nobody"
        extra = f" ({'; '.join(marks)})" if marks else ""
        print(f"  {region['terrain']} region of {region['size']} at {x},{y}: "
              f"{region['value']}{extra}; stones {region['stones']}; to {owners}")  # fmt: skip
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    from companion.simulate import show_game, simulate

    game = get_game(args.game)
    players = game.min_players if args.players is None else args.players
    game.check_players(players)
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    if args.ply_limit < 1:
        raise UsageError(f"--ply-limit must be at least 1, got {args.ply_limit}")
    if args.show and args.json:
        raise UsageError("--show and --json do not go together")
    if args.delay and not args.show:
        raise UsageError("--delay works with --show only")
    if args.delay < 0:
        raise UsageError(f"--delay must not be negative, got {args.delay}")
    options = dict(parse_option(text) for text in args.option)
    game.options(options)  # refuse bad options before anything runs
    kit = load_kit(game.name, args.kit)
    view = View(args.view)

    if args.show:
        initial = game.new(players, options, kit, view)
        show_game(
            game,
            initial,
            seed=args.seed,
            ply_limit=args.ply_limit,
            out=sys.stdout,
            delay=args.delay,
            sleep=time.sleep,
        )
        return 0

    started = time.perf_counter()
    summary = simulate(
        game,
        players,
        options,
        kit,
        view=view,
        games=args.games,
        seed=args.seed,
        ply_limit=args.ply_limit,
    )
    elapsed = time.perf_counter() - started
    moves = summary["length"]["total"]
    if args.json:
        print(dumps(summary))
    else:
        print_summary(summary)
    print(
        f"{summary['games']} games, {moves} moves in {elapsed:.2f} s: "
        f"{summary['games'] / elapsed:.1f} games/s, {moves / elapsed:.0f} moves/s",
        file=sys.stderr,
    )
    return 0


def print_summary(summary: dict[str, Any]) -> None:
    length = summary["length"]
    print(f"{summary['game']}: {summary['games']} games, seed {summary['seed']}")
    print(f"  finished {summary['finished']}, unfinished {summary['unfinished']}")
    print(f"  length: mean {length['mean']}, min {length['min']}, max {length['max']} moves")
    for seat, scores in enumerate(summary["scores"]):
        print(
            f"  seat {seat}: {summary['wins'][seat]} wins; final score mean {scores['mean']}, "
            f"min {scores['min']}, max {scores['max']}"
        )
    print(f"  draws: {summary['draws']}")
    for reason, count in summary["outcomes"].items():
        print(f"  ended by {reason}: {count}")
    for label, count in summary["situations"].items():
        print(f"  {label}: {count}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
