"""The line protocol of docs/serial-protocol.md, as a device writes and reads it.

    @<seq> <TYPE> <key>=<value> ... *<CRC>\\n

Plain MicroPython and CPython alike: no imports, no f-string tricks, bytes and lists.
``encode`` makes a frame; ``Reader`` takes the bytes the companion sends and returns
the frames whose CRC is right (a device must ignore the others).
"""

SEQ_MODULUS = 65536
MAX_FRAME = 200  # bytes from '@' to '\n'
MAX_VALUE = 64

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_TYPE_CHARS = _UPPER + "0123456789_"
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_HEX = "0123456789ABCDEF"


def crc16(data):
    """CRC-16/CCITT-FALSE bit by bit, as the protocol page shows it in C:
    ``crc16(b"123456789") == 0x29B1``."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def hex4(number):
    """Four capital hexadecimal digits."""
    return "".join(_HEX[(number >> shift) & 0xF] for shift in (12, 8, 4, 0))


def _check_word(word, first, rest, limit, what):
    if not word or len(word) > limit or word[0] not in first:
        raise ValueError("bad " + what + ": " + repr(word))
    for char in word:
        if char not in rest:
            raise ValueError("bad " + what + ": " + repr(word))


def _check_value(value):
    if not value or len(value) > MAX_VALUE:
        raise ValueError("a value is 1 to 64 characters: " + repr(value))
    for char in value:
        if not "!" <= char <= "~" or char in "*@":
            raise ValueError("a value is printable, without space, * or @: " + repr(value))


def encode(seq, type_, fields=()):
    """One frame's bytes: ``fields`` is a sequence of (key, value) pairs, in order; values
    are made text with ``str`` (a list or tuple becomes comma separated). A key, type or
    value the protocol does not allow raises ``ValueError``: better at the bench than on
    the wire."""
    _check_word(type_, _UPPER, _TYPE_CHARS, 16, "type")
    parts = ["@" + str(seq % SEQ_MODULUS), type_]
    for key, value in fields:
        _check_word(key, _KEY_CHARS[:26], _KEY_CHARS, 16, "key")
        is_list = isinstance(value, (list, tuple))
        value = ",".join(str(v) for v in value) if is_list else str(value)
        _check_value(value)
        parts.append(key + "=" + value)
    body = (" ".join(parts) + " ").encode()
    raw = body + ("*" + hex4(crc16(body)) + "\n").encode()
    if len(raw) > MAX_FRAME:
        raise ValueError("a frame is at most 200 bytes")
    return raw


def decode(raw):
    """``(seq, type, fields)`` for an intact frame (``raw`` from '@' to '\\n'), with the
    fields as a dict; None when its CRC or its shape is wrong."""
    if raw.endswith(b"\r\n"):
        raw = raw[:-2]
    elif raw.endswith(b"\n"):
        raw = raw[:-1]
    else:
        return None
    star = raw.rfind(b" *")
    if star < 0 or len(raw) - star != 6 or not raw.startswith(b"@"):
        return None
    body = raw[: star + 1]
    try:
        text = raw[star + 2 :].decode()
        checksum = int(text, 16)
        words = body[1:-1].decode().split(" ")
    except ValueError:  # not ASCII, or not hexadecimal (UnicodeError is a ValueError)
        return None
    if text.upper() != text or checksum != crc16(body):
        return None
    if len(words) < 2 or not words[0].isdigit() or int(words[0]) >= SEQ_MODULUS:
        return None
    fields = {}
    for word in words[2:]:
        eq = word.find("=")
        if eq < 1 or eq == len(word) - 1:
            return None
        fields[word[:eq]] = word[eq + 1 :]
    return int(words[0]), words[1], fields


class Reader:
    """Bytes from the companion in, intact frames out (see ``decode``). Bytes outside a
    frame, frames cut short by a new '@', over-long and damaged frames are dropped;
    ``dropped`` counts the frames thrown away."""

    def __init__(self):
        self.buffer = b""
        self.dropped = 0

    def feed(self, data):
        frames = []
        buffer = self.buffer + bytes(data)
        while True:
            start = buffer.find(b"@")
            if start < 0:
                buffer = b""
                break
            if start:
                buffer = buffer[start:]
            end = buffer.find(b"\n")
            restart = buffer.find(b"@", 1)
            if restart >= 0 and (end < 0 or restart < end):
                self.dropped += 1  # cut short
                buffer = buffer[restart:]
                continue
            if end < 0:
                if len(buffer) > MAX_FRAME:
                    self.dropped += 1
                    buffer = b""
                break
            raw, buffer = buffer[: end + 1], buffer[end + 1 :]
            parsed = decode(raw) if len(raw) <= MAX_FRAME else None
            if parsed is None:
                self.dropped += 1
            else:
                frames.append(parsed)
        self.buffer = buffer
        return frames
