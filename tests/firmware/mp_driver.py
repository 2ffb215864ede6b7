"""Runs the firmware's logic on recorded inputs and prints every frame it writes, one a
line: the same script under CPython and under MicroPython's unix port must print the
same (tests/firmware/test_fw_micropython.py). Plain MicroPython: no f-strings, no
imports beyond ``sys``.

    micropython mp_driver.py REPO INPUTS

INPUTS has one input a line: ``die T X Y Z`` (an accelerometer sample in g),
``beams T 0101...`` and ``clicks T 0101...`` (the Regie's sensors), ``host FRAME`` (bytes
from the companion), ``tick T``, ``batt T MV``.
"""

import sys


def main(repo, inputs):
    sys.path.insert(0, repo)
    from firmware.die.die import Die
    from firmware.regie.regie import Regie

    die = Die("D1-MP", "0000BEEF")
    regie = Regie("R1-MP", "00C0FFEE")
    out = die.boot(0) + regie.boot(0)
    now = 0
    with open(inputs) as lines:
        for line in lines:
            words = line.split()
            kind = words[0]
            if kind == "host":
                frame = (" ".join(words[1:]) + "\n").encode()
                out += die.receive(frame, now) + regie.receive(frame, now)
                continue
            now = int(words[1])
            if kind == "die":
                out += die.sample(now, float(words[2]), float(words[3]), float(words[4]))
            elif kind == "beams":
                out += regie.beams(now, [c == "1" for c in words[2]])
            elif kind == "clicks":
                out += regie.clicks(now, [c == "1" for c in words[2]])
            elif kind == "tick":
                out += die.tick(now) + regie.tick(now)
            elif kind == "batt":
                out += die.battery(now, int(words[2]))
    for raw in out:
        print(raw.decode().rstrip())


main(sys.argv[1], sys.argv[2])
