"""The JSON API through Flask's test client: a fresh app and journal per test."""

from __future__ import annotations

import json

import pytest

from companion.app import Service, create_app
from companion.journal import Journal
from companion.tables import ConfigError, Table, TableConfig, read_config
from rules import new_game

PIN = {"X-Table-PIN": "4711"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def build(tmp_path, clock=None):
    clock = clock or Clock()
    journal = Journal(tmp_path / "journal.sqlite", clock=clock)
    tables = [
        Table(TableConfig("uraeus-1", "uraeus", ("Ada", "Ben", "Cy"), "4711"), journal),
        Table(TableConfig("gimmel-1", "gimmel", ("Dee", "Eve"), "4711"), journal),
    ]
    return create_app(Service(tables, clock)), journal


@pytest.fixture
def client(tmp_path):
    app, _ = build(tmp_path)
    return app.test_client()


def test_tables_are_listed_with_their_seq(client):
    listing = client.get("/api/tables").get_json()["tables"]
    assert [t["id"] for t in listing] == ["uraeus-1", "gimmel-1"]
    uraeus = listing[0]
    assert uraeus["players"] == ["Ada", "Ben", "Cy"] and uraeus["scores"] == [0, 0, 0]
    assert uraeus["seq"] == 0 and uraeus["to_act"] == "chance"


def test_a_change_without_the_pin_is_refused_and_changes_nothing(client):
    response = client.post("/api/tables/uraeus-1/moves", json={"move": {"type": "roll", "face": 4}})
    assert response.status_code == 401 and "PIN" in response.get_json()["error"]
    wrong = client.post("/api/tables/uraeus-1/moves", json={"move": {"type": "roll", "face": 4}},
                        headers={"X-Table-PIN": "0000"})  # fmt: skip
    assert wrong.status_code == 401
    assert client.get("/api/tables/uraeus-1/journal").get_json()["entries"] == []


def test_a_change_with_the_pin_is_journalled(client):
    response = client.post(
        "/api/tables/uraeus-1/moves", json={"move": {"type": "roll", "face": 4}}, headers=PIN
    )
    assert response.status_code == 200
    seq = response.get_json()["seq"]
    entries = client.get("/api/tables/uraeus-1/journal").get_json()["entries"]
    assert entries[-1]["seq"] == seq and entries[-1]["data"] == {"type": "roll", "face": 4}
    state = client.get("/api/tables/uraeus-1/state").get_json()
    assert state["seq"] == seq and state["state"]["rolloff"]["rolls"] == [4]
    assert "shows 4" in state["last_move"]


def test_an_illegal_move_is_flagged_with_the_rule_in_words_and_journalled(client):
    response = client.post(
        "/api/tables/uraeus-1/moves", json={"move": {"type": "roll", "face": 9}}, headers=PIN
    )
    assert response.status_code == 422
    flag = response.get_json()["flag"]
    assert flag["rule"] == "uraeus.die-face" and flag["words"] == "The die shows 1 to 6."
    assert flag["heading"] == "Spielsteine und Spielwürfel" and flag["german"]
    entries = client.get("/api/tables/uraeus-1/journal").get_json()["entries"]
    assert entries[-1]["kind"] == "flag"


@pytest.mark.parametrize(
    ("path", "kwargs", "status", "fragment"),
    [
        ("/api/tables/nope/state", {}, 404, "no table 'nope'"),
        ("/api/tables/gimmel-1/journal?since=x", {}, 400, "since must be a sequence number"),
    ],
)
def test_bad_requests_get_clear_4xx_answers(client, path, kwargs, status, fragment):
    response = client.get(path, **kwargs)
    assert response.status_code == status and fragment in response.get_json()["error"]


def test_bad_change_requests_get_clear_4xx_answers(client):
    post = client.post
    bad_json = post("/api/tables/gimmel-1/moves", data="{not json", headers=PIN,
                    content_type="application/json")  # fmt: skip
    assert bad_json.status_code == 400 and "not valid JSON" in bad_json.get_json()["error"]
    malformed = post("/api/tables/gimmel-1/moves", json={"move": {"type": "jump"}}, headers=PIN)
    assert malformed.status_code == 400 and "malformed move" in malformed.get_json()["error"]
    stale = post("/api/tables/gimmel-1/moves", json={"move": {"type": "lot", "white": 0},
                 "seq": 99}, headers=PIN)  # fmt: skip
    assert stale.status_code == 409 and "stale" in stale.get_json()["error"]
    nothing = post("/api/tables/gimmel-1/undo", json={}, headers=PIN)
    assert nothing.status_code == 409 and "no move to take back" in nothing.get_json()["error"]


def test_undo_takes_back_the_last_move_on_record(client):
    client.post(
        "/api/tables/gimmel-1/moves", json={"move": {"type": "lot", "white": 1}}, headers=PIN
    )
    response = client.post("/api/tables/gimmel-1/undo", json={}, headers=PIN)
    assert response.status_code == 200
    state = client.get("/api/tables/gimmel-1/state").get_json()
    assert state["state"]["white"] is None and state["to_act"] == "chance"
    kinds = [e["kind"] for e in client.get("/api/tables/gimmel-1/journal").get_json()["entries"]]
    assert kinds == ["move", "undo"]


def test_wrong_pins_are_rate_limited_per_client(tmp_path):
    clock = Clock()
    app, _ = build(tmp_path, clock)
    client = app.test_client()
    for _ in range(5):
        assert (
            client.post("/api/tables/gimmel-1/undo", headers={"X-Table-PIN": "1"}).status_code
            == 401
        )
    assert client.post("/api/tables/gimmel-1/undo", headers=PIN).status_code == 429
    clock.now += 61
    assert client.post("/api/tables/gimmel-1/undo", headers=PIN).status_code == 409


def test_a_restart_resumes_every_table_from_the_journal(tmp_path):
    app, journal = build(tmp_path)
    client = app.test_client()
    for face in (5, 2, 1, 3):
        client.post("/api/tables/uraeus-1/moves", json={"move": {"type": "roll", "face": face}},
                    headers=PIN)  # fmt: skip
    before = client.get("/api/tables").get_json()
    journal.close()
    again, _ = build(tmp_path)
    assert again.test_client().get("/api/tables").get_json() == before


def test_the_configuration_names_what_is_wrong(tmp_path):
    path = tmp_path / "tables.toml"
    path.write_text('[[tables]]\nid = "t"\ngame = "chess"\npin = "1"\nplayers = ["a", "b"]\n')
    with pytest.raises(ConfigError, match=r"tables\[0\]\.game: unknown game 'chess'"):
        read_config(path)
    path.write_text('[[tables]]\nid = "t"\ngame = "gimmel"\npin = "1"\nplayers = ["a", "b"]\n')
    (config,) = read_config(path)
    assert config.players == ("a", "b")
    with pytest.raises(ConfigError, match="gimmel takes 2 players, got 3"):
        Table(TableConfig("x", "gimmel", ("a", "b", "c"), "1"), Journal(tmp_path / "j.sqlite"))
    base = '[[tables]]\nid = "t"\npin = "1"\nplayers = ["a", "b"]\n'
    path.write_text(base + 'game = "uraeus"\ndevices = { die = "usb:2e8a:000a" }\n')
    assert read_config(path)[0].devices == {"die": "usb:2e8a:000a"}
    path.write_text(base + 'game = "gimmel"\ndevices = { die = "/dev/ttyACM0" }\n')
    with pytest.raises(ConfigError, match=r"devices\.die: gimmel has no device 'die' .*none"):
        read_config(path)
    path.write_text(base.replace('"t"', '"../x"') + 'game = "regie"\n')
    with pytest.raises(ConfigError, match=r"tables\[0\]\.id: '\.\./x' is not a table id"):
        read_config(path)
    path.write_text(base + 'game = "regie"\ndevices = { sensors = 7 }\n')
    with pytest.raises(ConfigError, match=r"devices\.sensors: expected a path or usb"):
        read_config(path)


def test_live_events_catch_up_from_a_seq_and_follow_each_change(tmp_path):
    app, _ = build(tmp_path)
    app.config["KEEPALIVE_SECONDS"] = 0.01
    client = app.test_client()
    first = client.post("/api/tables/uraeus-1/moves", json={"move": {"type": "roll", "face": 5}},
                        headers=PIN).get_json()["seq"]  # fmt: skip
    response = client.get(f"/api/tables/uraeus-1/events?since={first - 1}", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = (chunk.decode() for chunk in response.response)
    assert next(chunks).startswith("retry:")
    caught_up = next(chunks)
    assert caught_up.startswith(f"id: {first}\nevent: move\n") and '"face": 5' in caught_up
    assert next(chunks) == ": keep-alive\n\n"  # nothing new yet
    second = client.post("/api/tables/uraeus-1/moves", json={"move": {"type": "roll", "face": 2}},
                         headers=PIN).get_json()["seq"]  # fmt: skip
    update = next(chunks)
    assert update.startswith(f"id: {second}\nevent: move\n")
    payload = json.loads(update.split("data: ", 1)[1])
    assert payload["table"]["seq"] == second
    response.close()
    # A reconnecting browser sends the last id it saw and gets only what came after.
    again = client.get("/api/tables/uraeus-1/events", headers={"Last-Event-ID": str(first)},
                       buffered=False)  # fmt: skip
    chunks = (chunk.decode() for chunk in again.response)
    next(chunks)
    assert next(chunks).startswith(f"id: {second}\n")
    again.close()


def test_the_pages_show_the_tables_and_follow_the_live_stream(client):
    index = client.get("/")
    assert index.status_code == 200 and b"Ada, Ben, Cy" in index.data
    page = client.get("/tables/uraeus-1")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and 'data-table="uraeus-1"' in html and 'data-seq="0"' in html
    assert "/static/scoreboard.js" in html and "http" not in html.split("<body", 1)[1]  # all local
    script = client.get("/static/scoreboard.js")
    assert script.status_code == 200 and "EventSource" in script.get_data(as_text=True)
    assert client.get("/tables/nope").status_code == 404


def test_two_tablets_acting_on_one_state_cannot_both_win(client):
    roll = {"move": {"type": "roll", "face": 3}, "seq": 0}
    assert client.post("/api/tables/uraeus-1/moves", json=roll, headers=PIN).status_code == 200
    second = client.post("/api/tables/uraeus-1/moves", json=roll, headers=PIN)
    assert second.status_code == 409 and "stale" in second.get_json()["error"]


def test_odd_requests_get_4xx_not_500(client):
    form = client.post("/api/tables/gimmel-1/undo", data={"seq": "1"}, headers=PIN)
    assert form.status_code == 415 and "application/json" in form.get_json()["error"]
    for since in ("99999999999999999999", "²", "-1"):
        answer = client.get(f"/api/tables/gimmel-1/journal?since={since}")
        assert answer.status_code == 400, since
    deep = "[" * 100000 + "]" * 100000
    nested = client.post("/api/tables/gimmel-1/moves", data=deep, headers=PIN,
                         content_type="application/json")  # fmt: skip
    assert nested.status_code in (400, 413)
    big = client.post("/api/tables/gimmel-1/moves", data="x" * 100_000, headers=PIN,
                      content_type="application/json")  # fmt: skip
    assert big.status_code == 413


def test_live_streams_are_capped_and_an_unknown_last_id_starts_afresh(tmp_path):
    clock = Clock()
    journal = Journal(tmp_path / "j.sqlite", clock=clock)
    tables = [Table(TableConfig("g", "gimmel", ("a", "b"), "4711"), journal)]
    app = create_app(Service(tables, clock, max_streams=1))
    app.config["KEEPALIVE_SECONDS"] = 0.01
    client = app.test_client()
    client.post("/api/tables/g/moves", json={"move": {"type": "lot", "white": 0}}, headers=PIN)
    first = client.get("/api/tables/g/events", headers={"Last-Event-ID": "5000"}, buffered=False)
    chunks = (chunk.decode() for chunk in first.response)
    next(chunks)
    assert next(chunks).startswith("id: 1\n")  # from the start, not from 5000
    assert client.get("/api/tables/g/events").status_code == 503  # the one stream is taken
    first.close()
    assert client.get("/api/tables/g/events", buffered=False).status_code == 200


def test_the_journal_keeps_a_games_players_and_names_a_table_that_does_not_fit(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    Table(TableConfig("u", "uraeus", ("a", "b", "c"), "1"), journal)
    # The game in progress keeps the players it was started with; the configuration's
    # names are for the games to come.
    assert Table(TableConfig("u", "uraeus", ("x", "y"), "1"), journal).players == ("a", "b", "c")
    # A game recorded without names (schema 1) takes the configuration's: they must fit.
    journal.start_game("v", new_game("uraeus", players=3))
    with pytest.raises(ConfigError, match=r"table 'v': the journal's game .* 3 seats"):
        Table(TableConfig("v", "uraeus", ("a", "b"), "1"), journal)


def test_the_scoreboard_names_whose_turn_it_is_without_waiting_for_the_script(client):
    client.post(
        "/api/tables/gimmel-1/moves", json={"move": {"type": "lot", "white": 1}}, headers=PIN
    )
    html = client.get("/tables/gimmel-1").get_data(as_text=True)
    assert "Eve to act." in html and 'data-seat="1" class="to-act"' in html


def post(client, path, body=None):
    return client.post(path, json=body if body is not None else {}, headers=PIN)


def test_every_change_endpoint_needs_the_pin(client):
    paths = ("moves", "taps", "undo", "end-turn", "dismiss", "games", "kit-correction", "edit")
    for path in paths:
        # From its own client address each, so that the rate limit does not answer first.
        response = client.post(f"/api/tables/gimmel-1/{path}", json={},
                               environ_base={"REMOTE_ADDR": f"10.0.0.{len(path)}"})  # fmt: skip
        assert response.status_code == 401, path
    assert client.get("/api/tables/gimmel-1/journal").get_json()["entries"] == []


def test_the_panel_draws_the_board_and_lists_the_moves_as_taps(client):
    post(client, "/api/tables/gimmel-1/moves", {"move": {"type": "lot", "white": 0}})
    answer = client.get("/api/tables/gimmel-1/panel?lang=de").get_json()
    assert answer["svg"].startswith("<svg") and 'data-place="a1"' in answer["svg"]
    places = [m for m in answer["moves"] if m["move"]["type"] == "place"]
    assert places and all(len(m["taps"]) == 2 and m["words"] for m in places)
    assert answer["chance"] == []
    assert client.get("/api/tables/gimmel-1/panel?lang=fr").status_code == 400
    chance = client.get("/api/tables/uraeus-1/panel").get_json()["chance"]
    assert [c["move"]["face"] for c in chance] == [1, 2, 3, 4, 5, 6]


def test_taps_make_a_move_and_an_illegal_one_is_flagged_with_its_rule(client):
    post(client, "/api/tables/gimmel-1/moves", {"move": {"type": "lot", "white": 0}})
    panel = client.get("/api/tables/gimmel-1/panel").get_json()
    first = next(m for m in panel["moves"] if m["move"]["type"] == "place")
    partial = post(client, "/api/tables/gimmel-1/taps", {"taps": first["taps"][:1]})
    assert partial.status_code == 200 and partial.get_json()["complete"] is False
    made = post(client, "/api/tables/gimmel-1/taps", {"taps": first["taps"]})
    assert made.status_code == 200 and made.get_json()["complete"] is True
    assert client.get("/api/tables/gimmel-1/state").get_json()["state"]["ply"] == 1
    # Black places on the square White took: the rules refuse it and say why.
    black = next(m for m in client.get("/api/tables/gimmel-1/panel").get_json()["moves"]
                 if m["move"]["type"] == "place")  # fmt: skip
    onto = [black["taps"][0], first["taps"][1]]
    refused = post(client, "/api/tables/gimmel-1/taps", {"taps": onto})
    assert refused.status_code == 422
    flag = refused.get_json()["flag"]
    assert flag["rule"].startswith("gimmel.") and flag["words"] and flag["german"]
    table = client.get("/api/tables").get_json()["tables"][1]
    assert table["attention"]["kind"] == "flag" and table["attention"]["rule"] == flag["rule"]
    bad = post(client, "/api/tables/gimmel-1/taps", {"taps": ["nowhere"]})
    assert bad.status_code == 400 and "nowhere" in bad.get_json()["error"]
    assert post(client, "/api/tables/gimmel-1/taps", {"taps": "a1"}).status_code == 400


def test_a_flag_is_dismissed_and_a_turn_ended_from_the_tablet(client):
    post(client, "/api/tables/gimmel-1/moves", {"move": {"type": "lot", "white": 0}})
    assert post(client, "/api/tables/gimmel-1/dismiss").status_code == 409  # nothing held
    illegal = {"type": "place", "player": 1, "piece": "beetle", "to": "a1"}
    assert post(client, "/api/tables/gimmel-1/moves", {"move": illegal}).status_code == 422
    dismissed = post(client, "/api/tables/gimmel-1/dismiss")
    assert dismissed.status_code == 200 and dismissed.get_json()["table"]["attention"] is None
    legal = {"type": "place", "player": 0, "piece": "beetle", "to": "a1"}
    assert post(client, "/api/tables/gimmel-1/moves", {"move": legal}).get_json()["table"][
        "turn_open"
    ]
    ended = post(client, "/api/tables/gimmel-1/end-turn").get_json()
    assert ended["table"]["turn_open"] is False
    kinds = [e["kind"] for e in client.get("/api/tables/gimmel-1/journal").get_json()["entries"]]
    assert kinds == ["move", "flag", "override", "move", "input"]


def test_a_seq_that_is_no_sequence_number_is_refused(client):
    for seq in (True, -1, "3", 1.5):
        answer = post(client, "/api/tables/gimmel-1/undo", {"seq": seq})
        assert (
            answer.status_code == 400
            and "seq must be a sequence number" in answer.get_json()["error"]
        )


def test_a_tablet_starts_another_game_with_its_players_and_options(client):
    games = client.get("/api/games").get_json()["games"]
    assert games["regie"]["kits"]["gimmel-1"] == ["default"]
    assert "fall_through" in games["regie"]["options"]
    started = post(client, "/api/tables/gimmel-1/games", {
        "game": "regie", "players": ["Red ", "Blue"],
        "options": {"fall_through": "penalty"}, "kit": "default"})  # fmt: skip
    assert started.status_code == 200
    table = started.get_json()["table"]
    assert table["game"] == "regie" and table["players"] == ["Red", "Blue"]
    state = client.get("/api/tables/gimmel-1/state").get_json()["state"]
    assert state["options"]["fall_through"] == "penalty"  # not the default: chosen
    # The next game keeps what is not chosen again: the game, players and options.
    again = post(client, "/api/tables/gimmel-1/games", {"players": ["Ann", "Bo"]}).get_json()
    assert again["table"]["game"] == "regie" and again["table"]["players"] == ["Ann", "Bo"]
    state = client.get("/api/tables/gimmel-1/state").get_json()["state"]
    assert state["options"]["fall_through"] == "penalty"
    for body, status, words in [
        ({"game": "chess"}, 400, "unknown game 'chess'"),
        ({"game": ["regie"]}, 400, "unknown game"),
        ({"players": ["a", ""]}, 400, "players: expected a list of names"),
        ({"kit": "mine"}, 400, "'mine' is not one of default"),
        ({"options": {"fall_through": "sometimes"}}, 422, "fall_through"),
        ({"game": "uraeus", "players": ["solo"]}, 422, "2 to 4 players"),
        ({"colour": "red"}, 400, "unknown field 'colour'"),
        ({"position": {"notation": 1}}, 400, "position"),
        ({"position": None}, 400, "position: expected a state"),
    ]:
        answer = post(client, "/api/tables/gimmel-1/games", body)
        assert answer.status_code == status and words in answer.get_json()["error"], body
    assert client.get("/api/tables").get_json()["tables"][1]["game"] == "regie"


def test_the_position_editor_joins_a_game_in_progress(client):
    from rules import get_game, new_game
    from rules.gimmel import DrawLots, Place
    from rules.gimmel.model import Kind
    from rules.grid import Square

    gimmel = get_game("gimmel")
    state = gimmel.play(new_game("gimmel"), DrawLots(white=1))
    state = gimmel.play(state, Place(1, Kind.FALCON, Square.parse("e5")))
    position = gimmel.state_to_json(state)
    answer = post(client, "/api/tables/gimmel-1/games", {"position": position})
    assert answer.status_code == 200 and answer.get_json()["table"]["to_act"] == 0
    assert client.get("/api/tables/gimmel-1/state").get_json()["state"] == position
    uraeus = get_game("uraeus").state_to_json(new_game("uraeus", players=3))
    wrong = post(client, "/api/tables/gimmel-1/games", {"game": "gimmel", "position": uraeus})
    assert wrong.status_code == 422
    assert "is a Uräus position, not Gimmel" in wrong.get_json()["error"]
    # A position says its game: at a table of two, a three-seat Uräus needs three names.
    seats = post(client, "/api/tables/gimmel-1/games", {"position": uraeus})
    assert seats.status_code == 422 and "3 seats, but 2 players" in seats.get_json()["error"]
    joined = post(client, "/api/tables/gimmel-1/games",
                  {"position": uraeus, "players": ["A", "B", "C"]})  # fmt: skip
    assert joined.get_json()["table"]["game"] == "uraeus"


def test_the_sensors_win_over_the_kit_and_the_tablet_keeps_the_correction(tmp_path):
    """Regie, NOTES.md §4 Ambiguities ("Chip that falls through at insertion"): when the
    sensors see a chip fall where the kit has no window, the game believes the sensors and
    the tablet offers the kit as play has shown it, which the table's next games use."""
    from companion.tracker import Claim
    from rules.regie import Insert, Seen

    journal = Journal(tmp_path / "journal.sqlite")
    regie = Table(TableConfig("r", "regie", ("Red", "Blue"), "4711"), journal)
    client = create_app(Service([regie], Clock())).test_client()
    assert post(client, "/api/tables/r/kit-correction").status_code == 409  # nothing yet
    post(client, "/api/tables/r/moves", {"move": {"type": "start", "first": 0}})
    # The kit has level 2 solid under column 0; the sensors saw the chip fall through.
    seen = Seen(through=True, exits=())
    assert regie.claim(Claim("sensors", moves=(Insert(0, 0, seen),))).kind == "move"
    offer = client.get("/api/tables").get_json()["tables"][0]["kit_correction"]
    (field,) = offer["fields"]
    assert field["field"] == "levels[1].cells" and offer["kit"] == regie.state.kit.name
    changed = [
        i for i, (a, b) in enumerate(zip(field["kit"], field["seen"], strict=True)) if a != b
    ]
    # Centred, level 2's cell 2 is under frame column 0 (two cells lie outside the frame).
    assert changed == [2] and field["seen"][2] == "o"
    assert offer["saved"] is False
    saved = post(client, "/api/tables/r/kit-correction")
    assert saved.status_code == 200 and saved.get_json()["saved"] == "kits/regie/r.toml"
    assert saved.get_json()["table"]["kit_correction"]["saved"] is True
    assert "r" in client.get("/api/games").get_json()["games"]["regie"]["kits"]["r"]
    post(client, "/api/tables/r/games", {})
    state = client.get("/api/tables/r/state").get_json()["state"]
    assert state["kit"]["levels"][1]["cells"] == offer["fields"][0]["seen"]
    assert client.get("/api/tables").get_json()["tables"][0]["kit_correction"] is None
    # The shipped kit stays a choice by name.
    post(client, "/api/tables/r/games", {"kit": "default"})
    state = client.get("/api/tables/r/state").get_json()["state"]
    assert state["kit"]["levels"][1]["cells"] == offer["fields"][0]["kit"]


def test_the_table_speaks_german_too(client):
    post(client, "/api/tables/uraeus-1/moves", {"move": {"type": "roll", "face": 5}})
    table = client.get("/api/tables").get_json()["tables"][0]
    assert table["last_move"].startswith("The roll-off die") and "5" in table["last_move"]
    assert "Würfel" in table["last_move_de"] and "5" in table["last_move_de"]
    english = client.get("/api/tables/uraeus-1/panel").get_json()["chance"]
    german = client.get("/api/tables/uraeus-1/panel?lang=de").get_json()["chance"]
    assert [c["move"] for c in german] == [c["move"] for c in english]
    assert all("Würfel" in c["words"] and "die" not in c["words"].split() for c in german)


def test_the_summary_names_colours_and_what_chance_waits_for(client):
    uraeus, gimmel = client.get("/api/tables").get_json()["tables"]
    assert uraeus["colours"] == ["red", "blue", "green"]
    assert uraeus["waiting_for"]["en"] == "the roll-off die of seat 0"
    assert "Würfel" in uraeus["waiting_for"]["de"]
    assert gimmel["colours"] == [None, None]  # before the colour lot
    post(client, "/api/tables/gimmel-1/moves", {"move": {"type": "lot", "white": 1}})
    gimmel = client.get("/api/tables").get_json()["tables"][1]
    assert gimmel["colours"] == ["black", "white"] and gimmel["waiting_for"] is None


def test_the_position_editor_builds_a_draft_tap_by_tap_and_sets_it(client):
    post(client, "/api/tables/gimmel-1/moves", {"move": {"type": "lot", "white": 1}})
    start = post(client, "/api/tables/gimmel-1/edit", {}).get_json()
    assert start["editor"] is True and 'data-place="c3"' in start["svg"]
    assert {s["name"] for s in start["settings"]} == {"white", "to_act"}
    shown = post(client, "/api/tables/gimmel-1/edit", {"draft": start["draft"], "place": "c3"})
    labels = {c["value"]: c["label"] for c in shown.get_json()["choices"]}
    assert labels["0:falcon"] == "Black: falcon" and labels[""] == "empty"
    edit = "/api/tables/gimmel-1/edit"
    step = post(client, edit, {"draft": start["draft"], "place": "c3", "value": "0:falcon"})
    step = step.get_json()
    assert step["draft"]["board"]["c3"] == {"player": 0, "piece": "falcon"}
    assert step["draft"]["reserve"][0]["falcon"] == 3  # it came from beside the board
    turn = {"setting": "to_act", "value": "0", "lang": "de"}
    step = post(client, edit, {"draft": step["draft"], **turn}).get_json()
    assert next(s for s in step["settings"] if s["name"] == "to_act")["value"] == "0"
    assert (
        "Schwarz"
        in next(s for s in step["settings"] if s["name"] == "to_act")["choices"][0]["label"]
    )
    assert client.get("/api/tables/gimmel-1/state").get_json()["state"]["board"] == {}  # a draft
    set_ = post(client, "/api/tables/gimmel-1/games", {"position": step["draft"]})
    assert set_.status_code == 200 and set_.get_json()["table"]["to_act"] == 0
    state = client.get("/api/tables/gimmel-1/state").get_json()["state"]
    assert state["board"] == {"c3": {"player": 0, "piece": "falcon"}}
    for body, words in [
        ({"place": "z99"}, "'z99' is no square"),
        ({"place": "c3", "value": "7:falcon"}, "no Gimmel piece"),
        ({"setting": "to_act", "value": "x"}, "expected a seat"),
        ({"place": 3}, "place: expected text"),
        ({"draft": {"notation": 1}}, "game"),
    ]:
        answer = post(client, "/api/tables/gimmel-1/edit", body)
        assert answer.status_code == 400 and words in answer.get_json()["error"], body


def test_the_uraeus_editor_sets_pieces_doubles_and_the_die(client):
    draft = post(client, "/api/tables/uraeus-1/edit", {}).get_json()["draft"]
    for payload in ({"setting": "turn", "value": "2"}, {"setting": "roll", "value": "5"},
                    {"place": "field:12", "value": "0:tail"},
                    {"place": "field:12", "value": "+2:head"},
                    {"place": "border:1", "value": "1"}):  # fmt: skip
        answer = post(client, "/api/tables/uraeus-1/edit", {"draft": draft, **payload})
        assert answer.status_code == 200, answer.get_json()
        draft = answer.get_json()["draft"]
    assert draft["track"] == {"12": [{"player": 0, "facing": "tail"},
                                     {"player": 2, "facing": "head"}]}  # fmt: skip
    assert draft["border"] == [2, 2, 2] and draft["home"] == [0, 1, 0]
    assert post(client, "/api/tables/uraeus-1/games", {"position": draft}).status_code == 200
    table = client.get("/api/tables").get_json()["tables"][0]
    assert table["to_act"] == 2
    regie = post(client, "/api/tables/uraeus-1/games", {"game": "regie", "players": ["R", "B"]})
    assert regie.status_code == 200
    notation_only = post(client, "/api/tables/uraeus-1/edit", {}).get_json()
    assert notation_only["editor"] is False and notation_only["draft"]["game"] == "regie"
    post(client, "/api/tables/uraeus-1/games", {"position": draft, "players": ["A", "B", "C"]})
    empty = post(client, "/api/tables/uraeus-1/edit", {"draft": draft, "place": "field:30",
                                                       "value": "1:tail"})  # fmt: skip
    assert empty.get_json()["draft"]["border"][1] == 1
