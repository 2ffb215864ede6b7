"""Chips through light beams, and levels and the box at their clicks: no pins, no clock.

``Beam`` counts a chip once. The beam's signal (``True``: blocked) chatters where a chip's
edge crosses it even behind a comparator with hysteresis, and a chip that comes to rest
in the beam, or wobbles in it, blocks and clears it for as long as it moves. A count
needs the beam blocked for ``block_ms`` (shorter blips are noise); after a count the
beam is locked out until it has been clear for ``clear_ms`` without a break and at
least ``lockout_ms`` have passed: a wobbling chip counts once. Each beam has its own
lockout, so chips in two compartments at once both count. A beam blocked at power-on
counts nothing until it has been clear.

``Clicks`` reads one level (or the box) from one Hall sensor per click position and a
magnet on the moving part: exactly one sensor on is a position; none or two is the part
between clicks. A position is reported once it has held for ``settle_ms``.
"""

BLOCK_MS = 3
CLEAR_MS = 60
LOCKOUT_MS = 150
SETTLE_MS = 150


class Beam:
    def __init__(self, block_ms=BLOCK_MS, clear_ms=CLEAR_MS, lockout_ms=LOCKOUT_MS):
        self.block_ms = block_ms
        self.clear_ms = clear_ms
        self.lockout_ms = lockout_ms
        self.armed = False  # until the beam has been seen clear
        self.blocked_since = None
        self.clear_since = None
        self.counted_at = None

    def update(self, t, blocked):
        """The beam's state at ``t`` ms; True when a chip is to be counted now."""
        if blocked:
            self.clear_since = None
            if self.blocked_since is None:
                self.blocked_since = t
            if self.armed and t - self.blocked_since >= self.block_ms:
                self.armed = False
                self.counted_at = t
                return True
            return False
        self.blocked_since = None
        if self.clear_since is None:
            self.clear_since = t
        if (
            not self.armed
            and t - self.clear_since >= self.clear_ms
            and (self.counted_at is None or t - self.counted_at >= self.lockout_ms)
        ):
            self.armed = True
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
