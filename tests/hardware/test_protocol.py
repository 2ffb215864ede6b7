"""The wire protocol's frames and the parser: every intact frame is recovered exactly
once from any stream of garbage, split at any read sizes; garbage is counted."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware.protocol import MAX_FRAME, Frame, Parser, crc16, frame

DERANDOMISED = settings(
    derandomize=True, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-.,", min_size=1, max_size=12)
frames = st.builds(
    lambda seq, kind, items: Frame(seq, kind, tuple(items)),
    st.integers(0, 65535),
    st.sampled_from(["ROLL", "HB", "HELLO", "COMP", "LEVEL"]),
    st.lists(
        st.tuples(st.sampled_from(["face", "rolls", "col", "count", "pos"]), words), max_size=4
    ),
)
garbage = st.binary(max_size=40).filter(lambda b: b"@" not in b)


def test_crc16_is_ccitt_false():
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_a_frame_is_a_printable_line_with_its_checksum():
    raw = frame(3, "ROLL", face=4, rolls=9).encode()
    assert raw == b"@3 ROLL face=4 rolls=9 *62AD\n"
    assert Parser().feed(raw) == [Frame(3, "ROLL", (("face", "4"), ("rolls", "9")))]
    assert Parser().feed(raw.replace(b"\n", b"\r\n")) == Parser().feed(raw)


@DERANDOMISED
@given(st.lists(st.tuples(garbage, frames), max_size=12), garbage, st.data())
def test_every_intact_frame_comes_out_exactly_once(pairs, tail, data):
    stream = b"".join(noise + f.encode() for noise, f in pairs) + tail
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    parser = Parser()
    out = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        out.extend(parser.feed(stream[start:end]))
    assert out == [f for _, f in pairs]
    assert parser.dropped["noise"] == sum(len(noise) for noise, _ in pairs) + len(tail)
    assert parser.frames == len(pairs)


@DERANDOMISED
@given(frames, st.integers(0, 200), st.integers(1, 255))
def test_a_flipped_byte_is_refused_and_the_next_frame_still_arrives(f, where, flip):
    raw = bytearray(f.encode())
    index = where % (len(raw) - 1)  # any byte but the final newline
    raw[index] ^= flip
    parser = Parser()
    out = parser.feed(bytes(raw) + f.encode())
    # The damaged frame may at worst vanish; it never turns into a different frame.
    assert out in ([f], [f, f])
    if out == [f]:
        assert sum(parser.bad_frames.values()) >= 1 or parser.dropped["noise"] >= 1


def test_garbage_kinds_are_counted_by_reason():
    good = frame(1, "HB", up=10).encode()
    parser = Parser()
    out = parser.feed(b"noise" + good[:-5] + b"0000\n" + b"@1 HB up=10 *" + good)
    assert out == [Frame(1, "HB", (("up", "10"),))]
    assert parser.bad_frames == {"checksum": 1, "truncated": 1}
    assert parser.dropped["noise"] == 5
    assert parser.resyncs >= 1
    parser = Parser()
    assert parser.feed(b"@" + b"x" * (MAX_FRAME + 5)) == []
    assert parser.bad_frames["overlong"] == 1
    assert parser.feed(good) == [Frame(1, "HB", (("up", "10"),))]
    assert Parser().feed(b"@1 hb up=10 *0000\n") == []  # malformed and never raising


def test_parser_never_raises_on_any_bytes():
    parser = Parser()
    for chunk in (bytes(range(256)), b"@@@@\n\n*\xff", b"@99999 X *FFFF\n", b"@1 A b *ZZZZ\n"):
        assert parser.feed(chunk) == []
