"""Running on a Pi: the guide (docs/raspberry-pi.md), the systemd unit and the udev rules
agree with each other and with the real command line and configuration reader."""

from __future__ import annotations

import configparser
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from companion.cli import build_parser
from companion.tables import read_config

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "raspberry-pi.md"
UNIT = ROOT / "docs" / "systemd" / "table-companion.service"
RULES = ROOT / "docs" / "udev" / "99-table-companion.rules"
EXAMPLE = ROOT / "docs" / "tables.example.toml"

CONFIG = "/etc/table-companion/tables.toml"
INSTANCE = "/var/lib/table-companion"
EXECUTABLE = "/opt/table-companion/.venv/bin/companion"


# -- reading the guide ------------------------------------------------------------------


def code_blocks(text: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown text, indented ones too, as (language, body)."""
    blocks = []
    for match in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```$", text, re.MULTILINE | re.DOTALL):
        indent = len(match.group(1))
        body = "\n".join(line[indent:] for line in match.group(3).splitlines())
        blocks.append((match.group(2), body))
    return blocks


def logical_lines(body: str) -> list[str]:
    """Lines, with backslash continuations joined."""
    return [line.strip() for line in body.replace("\\\n", " ").splitlines() if line.strip()]


def without_sudo(words: list[str]) -> list[str]:
    """``sudo [-u USER] [-E] command ...`` -> ``command ...``."""
    if not words or words[0] != "sudo":
        return words
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-u", "-g") else 1
    return words[i:]


def companion_commands() -> list[tuple[str, list[str]]]:
    """Every ``companion ...`` command in the guide's code blocks, as (line, arguments):
    shell lines (also run through sudo, by the full path or the short name) and the
    ``ExecStart=`` lines of the unit override it shows."""
    found = []
    for language, body in code_blocks(GUIDE.read_text(encoding="utf-8")):
        for line in logical_lines(body):
            if language == "ini":
                if not line.startswith("ExecStart=") or line == "ExecStart=":
                    continue
                words = shlex.split(line.removeprefix("ExecStart="))
            else:
                try:
                    words = without_sudo(shlex.split(line))
                except ValueError:  # not shell (a device's output, a TOML line)
                    continue
            if words and Path(words[0]).name == "companion":
                found.append((line, words[1:]))
    return found


def parse(arguments: list[str], line: str):
    try:
        return build_parser().parse_args(arguments)
    except SystemExit:
        pytest.fail(f"the real command line refuses: {line}")


def guide_config() -> str:
    """The configuration the guide shows: its one TOML block."""
    blocks = [
        body for language, body in code_blocks(GUIDE.read_text("utf-8")) if language == "toml"
    ]
    assert len(blocks) == 1, "the guide shows one configuration"
    return blocks[0]


# -- reading the unit and the rules -----------------------------------------------------


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def exec_start() -> list[str]:
    words = shlex.split(unit()["Service"]["ExecStart"])
    assert words[0] == EXECUTABLE
    return words[1:]


RULE_TOKEN = re.compile(
    r'(?P<key>[A-Z_]+)(?:\{(?P<attr>[^}]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"'
)
MATCH_KEYS = {"ACTION", "KERNEL", "SUBSYSTEM", "DRIVER", "ATTR", "KERNELS", "SUBSYSTEMS",
              "DRIVERS", "ATTRS", "ENV", "TAG", "PROGRAM", "RESULT"}  # fmt: skip
ASSIGN_KEYS = {"SYMLINK", "GROUP", "MODE", "OWNER", "ENV", "TAG", "RUN", "NAME"}


def rules() -> list[tuple[bool, list[tuple[str, str | None, str, str]]]]:
    """The rule lines as (active, [(key, attribute, operator, value), ...]): the active
    ones, and the commented examples (a comment that, without its ``# ``, is a rule)."""
    found = []
    for raw in RULES.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        active = not line.startswith("#")
        text = line if active else line.lstrip("#").strip()
        if not text or (not active and not re.match(r"[A-Z]+(\{[^}]*\})?(==|!=)", text)):
            continue
        tokens = [t.strip() for t in text.split(", ")]
        parsed = []
        for token in tokens:
            match = RULE_TOKEN.fullmatch(token)
            assert match, f"not a udev key, operator and quoted value: {token!r} in {raw!r}"
            parsed.append((match["key"], match["attr"], match["op"], match["value"]))
        found.append((active, parsed))
    return found


# -- the unit ---------------------------------------------------------------------------


def test_the_unit_has_the_sections_and_keys_a_service_needs():
    parsed = unit()
    assert {"Unit", "Service", "Install"} <= set(parsed.sections())
    service = parsed["Service"]
    assert service["Type"] == "simple"
    assert service["User"] == service["Group"] == "companion"
    assert {"dialout", "video"} <= set(service["SupplementaryGroups"].split())
    assert service["Restart"] == "on-failure" and service["RestartSec"] == "2"
    assert set(service["Environment"].split()) == {"PYTHONUNBUFFERED=1", "OPENBLAS_NUM_THREADS=1"}
    assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict"
    assert service["ProtectHome"] == "yes" and service["PrivateTmp"] == "yes"
    # A private /dev hides the serial ports: the service would never find a device.
    assert service.get("PrivateDevices", "no") == "no"
    assert "DevicePolicy" not in service
    assert Path(service["WorkingDirectory"]).is_absolute()
    assert parsed["Unit"]["After"] == parsed["Unit"]["Wants"] == "network-online.target"
    assert parsed["Install"]["WantedBy"] == "multi-user.target"


def test_the_units_command_is_accepted_by_the_real_command_line():
    arguments = exec_start()
    args = parse(arguments, " ".join(arguments))
    assert args.command == "serve" and not args.demo
    assert (args.config, args.instance) == (CONFIG, INSTANCE)
    assert (args.host, args.port) == ("0.0.0.0", 8000)


def test_the_instance_folder_is_the_one_writable_place():
    service = unit()["Service"]
    # ProtectSystem=strict leaves only the StateDirectory (and ReadWritePaths) writable.
    writable = {f"/var/lib/{service['StateDirectory']}", *service.get("ReadWritePaths", "").split()}
    assert INSTANCE in writable


# -- the udev rules ---------------------------------------------------------------------


def test_the_udev_rules_are_well_formed():
    found = rules()
    assert any(active for active, _ in found) and any(not active for active, _ in found)
    for active, tokens in found:
        matches = [t for t in tokens if t[2] in ("==", "!=")]
        assignments = [t for t in tokens if t[2] not in ("==", "!=")]
        assert matches and assignments, tokens
        assert {t[0] for t in matches} <= MATCH_KEYS, tokens
        assert {t[0] for t in assignments} <= ASSIGN_KEYS, tokens
        values = {(key, attr): value for key, attr, _, value in tokens}
        assert values[("SUBSYSTEM", None)] == "tty"
        assert re.fullmatch(r"[0-9a-f]{4}", values[("ATTRS", "idVendor")]), tokens
        if ("ATTRS", "idProduct") in values:
            assert re.fullmatch(r"[0-9a-f]{4}", values[("ATTRS", "idProduct")]), tokens
        assert values[("GROUP", None)] == "dialout" and values[("MODE", None)] == "0660"
        assert values[("ENV", "ID_MM_DEVICE_IGNORE")] == "1"
        # Active rules name no device: a name keyed on the USB ids alone would go to
        # every such board; the user fills in the examples.
        assert not (active and ("SYMLINK", None) in values), tokens


def test_the_udev_links_are_the_devices_the_guides_configuration_names():
    links = {
        f"/dev/{value}"
        for _, tokens in rules()
        for key, _, op, value in tokens
        if key == "SYMLINK" and op == "+="
    }
    devices = {
        table["id"]: table["devices"]
        for table in tomllib.loads(guide_config())["tables"]
        if "devices" in table
    }
    assert devices == {
        "uraeus": {"die": "/dev/table-die"},
        "regie": {"sensors": "/dev/table-regie"},
    }
    assert links == {path for named in devices.values() for path in named.values()}


# -- the guide --------------------------------------------------------------------------


def test_every_companion_command_in_the_guide_parses():
    commands = companion_commands()
    for line, arguments in commands:
        # Every command is complete as shown: no <placeholder> to fill in.
        assert "<" not in line, f"a placeholder in a command: {line}"
        parse(arguments, line)
    shown = {arguments[0] for _, arguments in commands}
    assert {"games", "serve", "devices"} <= shown


def test_the_guides_serve_commands_use_the_units_config_and_instance():
    serves = [parse(a, line) for line, a in companion_commands() if a[0] == "serve"]
    assert len(serves) >= 2  # by hand, and the port override
    for args in serves:
        assert (args.config, args.instance, args.host) == (CONFIG, INSTANCE, "0.0.0.0")
    text = GUIDE.read_text(encoding="utf-8")
    assert " ".join(["companion", *exec_start()]) in " ".join(text.split())


def test_the_guide_makes_the_user_folders_and_files_the_unit_expects():
    lines = [
        without_sudo(shlex.split(line))
        for language, body in code_blocks(GUIDE.read_text(encoding="utf-8"))
        if language == "sh"
        for line in logical_lines(body)
    ]
    service = unit()["Service"]
    useradd = next(words for words in lines if words[0] == "useradd")
    assert useradd[-1] == service["User"]
    groups = set(useradd[useradd.index("--groups") + 1].split(","))
    assert set(service["SupplementaryGroups"].split()) <= groups
    venv = next(words for words in lines if words[:3] == ["python3", "-m", "venv"])
    assert "--system-site-packages" in venv  # picamera2 comes from apt
    installed = {words[-1] for words in lines if words[0] in ("install", "cp")}
    assert {CONFIG, INSTANCE, "/etc/systemd/system/", "/etc/udev/rules.d/"} <= installed
    # Everything the guide copies from the repository is there.
    for words in lines:
        for word in words:
            if word.startswith("/opt/table-companion/docs/"):
                assert (ROOT / word.removeprefix("/opt/table-companion/")).is_file(), word
    # The unit is driven by its own name.
    for words in lines:
        if words[0] == "journalctl":
            assert words[words.index("-u") + 1] == UNIT.stem, words
        if words[0] == "systemctl" and words[1] != "daemon-reload":
            assert [w for w in words[2:] if not w.startswith("-")] == [UNIT.stem], words


def test_the_guides_configuration_is_read_by_the_real_reader(tmp_path):
    path = tmp_path / "tables.toml"
    path.write_text(guide_config(), encoding="utf-8")
    tables = read_config(path)
    assert [(t.game, t.devices) for t in tables] == [
        ("uraeus", {"die": "/dev/table-die"}),
        ("regie", {"sensors": "/dev/table-regie"}),
        ("gimmel", {}),
    ]
    # The guide's own advice: a PIN per table, not the example's.
    pins = [t.pin for t in tables]
    example_pins = {t.pin for t in read_config(EXAMPLE)}
    assert len(set(pins)) == len(pins) and not set(pins) & example_pins
