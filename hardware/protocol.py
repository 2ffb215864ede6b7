"""The wire protocol's frames: printable lines with a sequence number and a CRC.

    @<seq> <TYPE>[ <key>=<value>]... *<CRC>\\n

A hobbyist can read it in a serial monitor and write it in a few lines of
microcontroller code; ``docs/serial-protocol.md`` is the contract. ``Parser`` turns any
byte stream into frames: it never raises, resynchronises at the next ``@`` after
garbage, and counts everything it dropped, with the reason.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

START = ord("@")
END = ord("\n")
MAX_FRAME = 200  # bytes from '@' to '\n'; longer is garbage
SEQ_MODULUS = 65536

_TYPE = re.compile(rb"[A-Z][A-Z0-9_]{0,15}")
_KEY = re.compile(rb"[a-z][a-z0-9_]{0,15}")
_VALUE = re.compile(rb"[!-)+-?A-~]{1,64}")  # printable ASCII except space, '*' and '@'
_TAIL = re.compile(rb" \*([0-9A-F]{4})\r?\n")


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
        table.append(crc)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no
    final XOR. ``crc16(b"123456789") == 0x29B1``. (A device computes it bit by bit;
    the table is the same arithmetic, faster.)"""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[(crc >> 8) ^ byte]
    return crc


@dataclass(frozen=True)
class Frame:
    """One message: its sender's sequence number, its type and its fields in order."""

    seq: int
    type: str
    fields: tuple[tuple[str, str], ...] = ()

    def get(self, key: str) -> str | None:
        for name, value in self.fields:
            if name == key:
                return value
        return None

    def encode(self) -> bytes:
        """The frame's bytes, checksum and newline included."""
        body = f"@{self.seq % SEQ_MODULUS} {self.type}"
        for key, value in self.fields:
            body += f" {key}={value}"
        body += " "
        raw = body.encode("ascii")
        return raw + f"*{crc16(raw):04X}\n".encode("ascii")


def frame(seq: int, type: str, **fields: object) -> Frame:
    """A frame with ``fields`` in the order given: ``frame(3, "ROLL", face=4, rolls=9)``."""
    return Frame(seq % SEQ_MODULUS, type, tuple((k, str(v)) for k, v in fields.items()))


@dataclass
class Parser:
    """Bytes in, frames out. Feed any chunks; complete frames come out exactly once.

    ``dropped`` counts discarded bytes by reason: ``noise`` (bytes outside any frame),
    ``checksum``, ``malformed``, ``overlong``, ``truncated`` (a frame cut short by the
    next ``@``). ``resyncs`` counts the times a frame start was found after dropped
    bytes.
    """

    buffer: bytearray = field(default_factory=bytearray)
    dropped: Counter[str] = field(default_factory=Counter)
    bad_frames: Counter[str] = field(default_factory=Counter)
    frames: int = 0
    resyncs: int = 0
    _lost: bool = False

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        self.buffer.extend(data)
        while True:
            start = self.buffer.find(START)
            if start < 0:
                self._drop(len(self.buffer), "noise")
                self.buffer.clear()
                return out
            if start:
                self._drop(start, "noise")
                del self.buffer[:start]
            if self._lost:
                self.resyncs += 1
                self._lost = False
            # A frame runs to the newline; a new '@' before it means it was cut short.
            end = self.buffer.find(END)
            restart = self.buffer.find(START, 1)
            if restart >= 0 and (end < 0 or restart < end):
                self._reject(restart, "truncated")
                del self.buffer[:restart]
                continue
            if end < 0:
                if len(self.buffer) > MAX_FRAME:
                    self._reject(len(self.buffer), "overlong")
                    self.buffer.clear()
                return out
            raw = bytes(self.buffer[: end + 1])
            del self.buffer[: end + 1]
            if len(raw) > MAX_FRAME:
                self._reject(len(raw), "overlong")
                continue
            parsed = self._parse(raw)
            if parsed is not None:
                self.frames += 1
                out.append(parsed)

    def _parse(self, raw: bytes) -> Frame | None:
        tail = _TAIL.search(raw)
        if tail is None or tail.end() != len(raw):
            self._reject(len(raw), "malformed")
            return None
        body = raw[: tail.start() + 1]  # up to and including the space before '*'
        if crc16(body) != int(tail.group(1), 16):
            self._reject(len(raw), "checksum")
            return None
        words = body[1:-1].split(b" ")
        if len(words) < 2 or not words[0].isdigit() or not _TYPE.fullmatch(words[1]):
            self._reject(len(raw), "malformed")
            return None
        seq = int(words[0])
        fields = []
        for word in words[2:]:
            key, eq, value = word.partition(b"=")
            if not eq or not _KEY.fullmatch(key) or not _VALUE.fullmatch(value):
                self._reject(len(raw), "malformed")
                return None
            fields.append((key.decode(), value.decode()))
        if seq >= SEQ_MODULUS:
            self._reject(len(raw), "malformed")
            return None
        return Frame(seq, words[1].decode(), tuple(fields))

    def _drop(self, count: int, reason: str) -> None:
        if count:
            self.dropped[reason] += count
            self._lost = True

    def _reject(self, count: int, reason: str) -> None:
        self.bad_frames[reason] += 1
        self._drop(count, reason)
