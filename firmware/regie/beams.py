"""Chips through light beams, and levels and the box at their clicks: no pins, no clock.

``Beam`` counts a chip once. The beam's signal (``True``: blocked) chatters where a chip's
edge crosses it even behind a comparator with hysteresis: gaps of a millisecond or so. A
count needs the beam blocked for ``block_ms`` (shorter blips are noise); the beam is
armed again once it has been clear for ``clear_ms`` (5 ms: longer than any chatter, so
the chip has gone). No lockout beyond that: in Regie a level sliding can drop two
stacked chips down one chute 15 to 30 ms apart, and both must count.

A chip that does not fall through but stays in the beam (it lodged in the chute, or lies
across a beam where chips can rest) rocks, and blocks and clears the beam for as long as
it moves, with clear gaps of up to some 40 ms. Such a chip is told by how long it
blocks: a chip falling through a chute crosses the beam in its diameter over its speed
(some 2 cm at 0.5 m/s and more: 40 ms at most), so a beam occupied (blocked, with
gaps shorter than ``clear_ms``) for ``pass_ms`` (80 ms) or longer holds a chip at rest.
After that the beam counts again only once it has been clear for ``rest_clear_ms`` (60
ms) without a break: a wobbling chip counts once. Each beam is judged on its own, so
chips in two compartments at once both count. A beam blocked at power-on is taken as a
chip at rest there: it counts nothing until it has been clear for ``rest_clear_ms``.

``Clicks`` reads one level (or the box) from one Hall sensor per click position and a
magnet on the moving part: exactly one sensor on is a position; none or two is the part
between clicks. A position is reported once it has held for ``settle_ms``.
"""

BLOCK_MS = 3  # blocked this long: a chip (shorter: noise)
CLEAR_MS = 5  # clear this long: the chip has gone (chatter gaps are shorter)
PASS_MS = 80  # occupied this long: not a chip falling through but one at rest
REST_CLEAR_MS = 60  # clear this long after a chip at rest (its rocking gaps are shorter)
SETTLE_MS = 150


class Beam:
    def __init__(
        self, block_ms=BLOCK_MS, clear_ms=CLEAR_MS, pass_ms=PASS_MS, rest_clear_ms=REST_CLEAR_MS
    ):
        self.block_ms = block_ms
        self.clear_ms = clear_ms
        self.pass_ms = pass_ms
        self.rest_clear_ms = rest_clear_ms
        self.armed = False  # until the beam has been seen clear
        self.resting = True  # a chip at rest in the beam (at power-on: maybe)
        self.blocked_since = None  # this blocked stretch
        self.occupied_since = None  # blocked, with gaps shorter than clear_ms
        self.clear_since = None

    def update(self, t, blocked):
        """The beam's state at ``t`` ms; True when a chip is to be counted now."""
        if blocked:
            self.clear_since = None
            if self.blocked_since is None:
                self.blocked_since = t
            if self.occupied_since is None:
                self.occupied_since = t
            if t - self.occupied_since >= self.pass_ms:
                self.resting = True
            if self.armed and t - self.blocked_since >= self.block_ms:
                self.armed = False
                return True
            return False
        self.blocked_since = None
        if self.clear_since is None:
            self.clear_since = t
        clear = t - self.clear_since
        if clear >= self.clear_ms:
            self.occupied_since = None
            if not self.armed and clear >= (self.rest_clear_ms if self.resting else 0):
                self.armed = True
                self.resting = False
        return False


class Clicks:
    def __init__(self, positions, settle_ms=SETTLE_MS):
        """``positions``: the position each sensor stands for, in the order read."""
        self.positions = tuple(positions)
        self.settle_ms = settle_ms
        self.reading = None
        self.since = None
        self.settled = None

    def update(self, t, active):
        """The sensors' states (True: magnet seen); the newly settled position, or None."""
        on = [self.positions[i] for i in range(len(self.positions)) if active[i]]
        reading = on[0] if len(on) == 1 else None
        if reading != self.reading or self.since is None:
            self.reading = reading
            self.since = t
        if reading is not None and reading != self.settled and t - self.since >= self.settle_ms:
            self.settled = reading
            return reading
        return None
