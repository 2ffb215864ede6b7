"""The die as the companion knows it: rolls become ``ROLLING``, ``ROLL``, ``BADROLL``
frames with their counters, the battery ``BATT``, the state ``DIESNAP``.

``main.py`` reads the accelerometer and the battery and moves bytes; everything it
writes comes from here, so tests drive this class exactly as the board does.
"""

from firmware.common.battery import BatteryReport
from firmware.common.device import FW_VERSION, Device
from firmware.die.roll import DEFAULT_FACES, RollDetector


def raw_line(t, x, y, z):
    """One sample as a line for recording throws (``CONFIG["raw"]``): ``RAW,<ms>,<x>,<y>,
    <z>`` in g. No frame (no ``@``): the companion passes over it as noise."""
    return f"RAW,{t},{x:.4f},{y:.4f},{z:.4f}\n".encode()


class Die:
    def __init__(self, serial, boot_id, faces=DEFAULT_FACES, fw=FW_VERSION):
        self.detector = RollDetector(faces)
        self.device = Device("die", serial, boot_id, self.snapshot, fw)
        self.batt = BatteryReport()
        self.rolls = 0  # valid rolls since boot
        self.bad = 0  # rolls that do not count, since boot
        self.last = 0  # the last valid face, 0 before any

    def snapshot(self):
        return "DIESNAP", (("rolls", self.rolls), ("bad", self.bad), ("last", self.last))

    def boot(self, now):
        return self.device.boot(now)

    def sample(self, t, x, y, z):
        """One accelerometer reading (g) at ``t`` ms; the frames it causes."""
        out = []
        for outcome in self.detector.update(t, x, y, z):
            if outcome[0] == "ROLLING":
                out.append(self.device.send("ROLLING", (), t))
            elif outcome[0] == "ROLL":
                self.rolls += 1
                self.last = outcome[1]
                fields = (("face", self.last), ("rolls", self.rolls))
                out.append(self.device.send("ROLL", fields, t))
            else:
                self.bad += 1
                fields = (("why", outcome[1]), ("bad", self.bad))
                out.append(self.device.send("BADROLL", fields, t))
        return out

    def battery(self, now, mv):
        """A battery reading in millivolts; a ``BATT`` frame now and then."""
        report = self.batt.due(now, mv)
        if report is None:
            return []
        return [self.device.send("BATT", (("mv", report[0]), ("pct", report[1])), now)]

    def receive(self, data, now):
        return self.device.receive(data, now)

    def tick(self, now):
        return self.device.tick(now)
