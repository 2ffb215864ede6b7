"""The Regie sensors as the companion knows them: ``INSERT``, ``COMP``, ``TABLE``,
``LEVEL``, ``BOX`` frames with their counters, the state ``REGIESNAP``.

The layout says what is where: the frame's columns, the columns of the top slots
(one beam each), one beam under every column where chips leave the frame for the box
(the compartment under it: beams fixed to the frame, above the box, so that a chip
bouncing on inside the box never crosses another beam: first entry only), one beam at
each side where chips fall onto the table, and one Hall sensor per click of each level
and of the box. ``main.py`` reads the pins; everything it writes comes from here.
"""

from firmware.common.device import FW_VERSION, Device
from firmware.common.wire import MAX_VALUE
from firmware.regie.beams import Beam, Clicks
from firmware.regie.mcp23017 import INPUTS

LEVELS = 6
SIDES = ("left", "right")
START_LEVEL = 0  # the levels start centred
START_BOX = 2  # and the box in the middle, the zero row under the frame


class Layout:
    """Where the sensors are. The defaults are the shipped kit (rules/kits/regie.toml):
    7 columns, chips put in at columns 0, 2, 4 and 6, levels that travel 1, 2, 2, 1, 2,
    2 clicks each way, a box with 3 positions."""

    def __init__(self, columns=7, insert_columns=(0, 2, 4, 6), travels=(1, 2, 2, 1, 2, 2)):
        if not 1 <= columns <= 20 or len(travels) != LEVELS:
            raise ValueError("1 to 20 columns and a travel for each of 6 levels")
        if any(not 0 <= c < columns for c in insert_columns):
            raise ValueError("insert columns lie within the frame")
        if any(not 0 <= t <= 9 for t in travels):
            raise ValueError("a level travels 0 to 9 clicks each way")
        self.columns = columns
        self.insert_columns = tuple(insert_columns)
        self.travels = tuple(travels)

    def beams(self):
        """The beams in the order ``Regie.beams`` takes them, named."""
        names = ["insert " + str(c) for c in self.insert_columns]
        names += ["comp " + str(c) for c in range(self.columns)]
        return names + ["table " + side for side in SIDES]

    def sensors(self):
        """The Hall sensors in the order ``Regie.clicks`` takes them, named."""
        names = []
        for level in range(1, LEVELS + 1):
            travel = self.travels[level - 1]
            names += ["level " + str(level) + " " + str(p) for p in range(-travel, travel + 1)]
        return names + ["box " + str(p) for p in (1, 2, 3)]


def check_wiring(layout, beam_pins, expanders, box_pins):
    """The board's CONFIG against the frame's layout, before anything is read: a
    ``ValueError`` that says what does not fit, rather than an ``IndexError`` later."""
    beams = layout.beams()
    if len(beam_pins) != len(beams):
        raise ValueError(
            "CONFIG beam_pins: " + str(len(beam_pins)) + " pins for " + str(len(beams))
            + " beams (" + ", ".join(beams) + ")"
        )  # fmt: skip
    levels = len(layout.sensors()) - 3
    inputs = len(INPUTS) * len(expanders)
    if levels > inputs:
        raise ValueError(
            "CONFIG travels: the levels need " + str(levels) + " Hall sensors, the "
            + str(len(expanders)) + " expanders in CONFIG expanders give " + str(inputs)
            + " inputs (" + str(len(INPUTS)) + " each): add an expander (0x22, ...) or "
            "shorten the travels"
        )  # fmt: skip
    if len(box_pins) != 3:
        raise ValueError("CONFIG box_pins: one pin for each of the box's 3 positions")
    pins = list(beam_pins) + list(box_pins)
    if len(set(pins)) != len(pins) or len(set(expanders)) != len(expanders):
        raise ValueError("CONFIG: a pin or an expander address given twice")


def _next_boot_id(boot_id):
    number = (int(boot_id, 16) + 1) & 0xFFFFFFFF
    return "".join("0123456789ABCDEF"[(number >> s) & 0xF] for s in range(28, -1, -4))


class Regie:
    """``boot_ids``: where a new boot id comes from when the counts start again (see
    ``beams``); ``main.py`` draws them from the chip's random generator, as at boot."""

    def __init__(self, serial, boot_id, layout=None, fw=FW_VERSION, boot_ids=None):
        self.layout = layout or Layout()
        self.device = Device("regie", serial, boot_id, self.snapshot, fw)
        self.boot_ids = boot_ids
        self.beam = [Beam() for _ in self.layout.beams()]
        self.levels_clicks = [Clicks(range(-travel, travel + 1)) for travel in self.layout.travels]
        self.box_clicks = Clicks((1, 2, 3))
        self.levels = [START_LEVEL] * LEVELS
        self.box = START_BOX
        self.comp = [0] * self.layout.columns  # chips into each compartment since boot
        self.table = [0, 0]  # chips off each side since boot
        self.inserts = 0
        self.started = False

    def snapshot(self):
        return "REGIESNAP", (
            ("levels", self.levels),
            ("box", self.box),
            ("comp", self.comp),
            ("table", self.table),
            ("inserts", self.inserts),
        )

    def boot(self, now):
        """The hello. Positions that settled before it are where the frame stands, not
        moves: ``main.py`` reads the sensors for a moment first."""
        self.started = True
        return self.device.boot(now)

    def restart(self, now):
        """The counts start again from 0, as at a boot: a new boot id and a hello with
        number 0 tell the companion (the levels and the box stay where they are)."""
        self.comp = [0] * self.layout.columns
        self.table = [0, 0]
        self.inserts = 0
        old = self.device.boot_id
        self.device.boot_id = self.boot_ids() if self.boot_ids else _next_boot_id(old)
        if self.device.boot_id == old:
            self.device.boot_id = _next_boot_id(old)
        return self.device.boot(now)

    def _comp_fits(self, col):
        """Whether ``comp`` with one more chip in ``col`` is a value of at most 64
        characters, as the protocol wants (20 columns of 3-digit counts are not)."""
        total = len(self.comp) - 1  # the commas
        for c in range(len(self.comp)):
            total += len(str(self.comp[c] + (1 if c == col else 0)))
        return total <= MAX_VALUE

    def beams(self, t, blocked, colours=None):
        """Every beam's state at ``t`` ms (True: blocked), in ``Layout.beams`` order;
        ``colours``, where a sensor tells them, the colour seen at each top slot
        (``red``, ``blue``); else ``unknown``. The frames for the chips counted."""
        out = []
        inserts = len(self.layout.insert_columns)
        columns = self.layout.columns
        for i in range(len(self.beam)):
            if not self.beam[i].update(t, blocked[i]) or not self.started:
                continue
            if i < inserts:
                self.inserts += 1
                colour = colours[i] if colours and colours[i] in ("red", "blue") else "unknown"
                fields = (
                    ("col", self.layout.insert_columns[i]),
                    ("colour", colour),
                    ("inserts", self.inserts),
                )
                out.append(self.device.send("INSERT", fields, t))
            elif i < inserts + columns:
                col = i - inserts
                if not self._comp_fits(col):
                    out += self.restart(t)
                self.comp[col] += 1
                out.append(self.device.send("COMP", (("col", col), ("count", self.comp[col])), t))
            else:
                side = i - inserts - columns
                self.table[side] += 1
                fields = (("side", SIDES[side]), ("count", self.table[side]))
                out.append(self.device.send("TABLE", fields, t))
        return out

    def clicks(self, t, active):
        """Every Hall sensor's state at ``t`` ms (True: magnet), in ``Layout.sensors``
        order. The frames for levels and the box come to rest somewhere new."""
        out = []
        first = 0
        for level in range(LEVELS):
            clicks = self.levels_clicks[level]
            count = len(clicks.positions)
            pos = clicks.update(t, active[first : first + count])
            first += count
            if pos is not None and pos != self.levels[level]:
                self.levels[level] = pos
                if self.started:
                    fields = (("level", level + 1), ("pos", pos))
                    out.append(self.device.send("LEVEL", fields, t))
        pos = self.box_clicks.update(t, active[first : first + 3])
        if pos is not None and pos != self.box:
            self.box = pos
            if self.started:
                out.append(self.device.send("BOX", (("pos", pos),), t))
        return out

    def receive(self, data, now):
        return self.device.receive(data, now)

    def tick(self, now):
        return self.device.tick(now)
