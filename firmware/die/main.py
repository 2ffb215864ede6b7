"""The die's board: copied to the board as /main.py (docs/hardware.md, "Flashing").

Only pins, the bus and the port here; the die itself is ``firmware.die.die.Die``.
Change CONFIG to your wiring. An error (a loose wire on the I2C bus) is logged to
/error.txt and the board restarts; the watchdog restarts it if the loop hangs.
"""

import time

import machine

from firmware.common.board import (
    Clock,
    boot_id,
    open_port,
    run,
    serial_number,
    start_watchdog,
)
from firmware.die.accel import find_accelerometer
from firmware.die.die import Die, raw_line

CONFIG = {
    # I2C to the accelerometer. Raspberry Pi Pico: I2C0 on GP4 (SDA) and GP5 (SCL).
    # Seeed XIAO RP2040: I2C1 on GPIO6 (D4, SDA) and GPIO7 (D5, SCL): (1, 6, 7).
    "i2c": (0, 4, 5),
    # "usb": the USB cable. A Bluetooth serial module (HC-06) on UART0: ("uart", 0, 0, 1)
    # for TX on GP0 and RX on GP1 at 115200 baud; another baud rate after them:
    # ("uart", 0, 0, 1, 9600).
    "port": ("usb",),
    # The ADC pin that reads the battery and the divider's ratio, for the wireless die:
    # two 100 kOhm resistors from the cell's + to GND, their middle on GPIO26 (ADC0):
    # (26, 2.0). None: no battery (the bench build, a tethered die), no BATT frames.
    "battery": None,
    # The face on the +x, -x, +y, -y, +z, -z side of the accelerometer as mounted.
    "faces": (2, 5, 3, 4, 1, 6),
    "period_ms": 10,  # 100 samples a second
    # True: also write every sample as a line "RAW,<ms>,<x>,<y>,<z>" (g) beside the
    # frames, to record real throws (docs/hardware.md, "Recording throws").
    "raw": False,
}


def battery_reader(spec):
    if spec is None:
        return None
    adc = machine.ADC(spec[0])
    ratio = spec[1]

    def read_mv():
        total = 0
        for _ in range(8):
            total += adc.read_u16()
        return int(total / 8 * 3300 * ratio / 65535)

    return read_mv


def main():
    bus, sda, scl = CONFIG["i2c"]
    i2c = machine.I2C(bus, sda=machine.Pin(sda), scl=machine.Pin(scl), freq=400000)
    accel = find_accelerometer(i2c)
    port = open_port(CONFIG["port"])
    read_mv = battery_reader(CONFIG["battery"])
    clock = Clock()
    die = Die(serial_number("D1-"), boot_id(), faces=CONFIG["faces"])
    period = CONFIG["period_ms"]
    raw = CONFIG["raw"]
    port.write(die.boot(clock.now()))
    next_sample = clock.now()
    next_battery = next_sample + 2000
    watchdog = start_watchdog()
    while True:
        watchdog.feed()
        now = clock.now()
        if now >= next_sample:
            x, y, z = accel.read()
            if raw:
                port.write([raw_line(now, x, y, z)])
            port.write(die.sample(now, x, y, z))
            next_sample += period
            if now - next_sample > 100:  # fell behind: do not catch up in a burst
                next_sample = now + period
        data = port.read()
        if data:
            port.write(die.receive(data, now))
        if read_mv is not None and now >= next_battery:
            port.write(die.battery(now, read_mv()))
            next_battery = now + 10000
        port.write(die.tick(now))
        time.sleep_ms(1)


run(main)
