"""A single-cell LiPo's charge from its voltage: rough, but enough to say "charge me".

The curve is a typical one for a small LiPo at a light load (a die draws some 30 mA);
cells differ, and the voltage sags under load, so the percentage is a guide only.
"""

# (millivolts, percent), falling
LIPO_CURVE = (
    (4200, 100),
    (4100, 90),
    (4000, 78),
    (3900, 64),
    (3800, 48),
    (3700, 28),
    (3600, 12),
    (3500, 5),
    (3300, 0),
)


def percent(mv, curve=LIPO_CURVE):
    """The charge in percent (0 to 100) at ``mv`` millivolts, linear between points."""
    if mv >= curve[0][0]:
        return curve[0][1]
    for i in range(1, len(curve)):
        high_mv, high_pct = curve[i - 1]
        low_mv, low_pct = curve[i]
        if mv >= low_mv:
            return low_pct + (high_pct - low_pct) * (mv - low_mv) // (high_mv - low_mv)
    return 0


class BatteryReport:
    """When to send ``BATT``: at the first reading, then every ``every_ms`` or as soon as
    the charge fell ``step`` percent since the last report."""

    def __init__(self, every_ms=300000, step=5):
        self.every_ms = every_ms
        self.step = step
        self.sent_at = None
        self.sent_pct = None

    def due(self, now, mv):
        """``(mv, pct)`` to report now, or None."""
        mv = max(0, min(10000, int(mv)))
        pct = percent(mv)
        if (
            self.sent_at is None
            or now - self.sent_at >= self.every_ms
            or self.sent_pct - pct >= self.step
        ):
            self.sent_at, self.sent_pct = now, pct
            return mv, pct
        return None
