"""The die's board: copied to the board as /main.py (docs/hardware.md, "Flashing").

Only pins, the bus and the port here; the die itself is ``firmware.die.die.Die``.
Change CONFIG to your wiring.
"""

import time

import machine

from firmware.common.board import Clock, UartPort, UsbPort, boot_id, serial_number
from firmware.die.accel import find_accelerometer
from firmware.die.die import Die

CONFIG = {
    # I2C to the accelerometer. Raspberry Pi Pico: I2C0 on GP4 (SDA) and GP5 (SCL).
    # Seeed XIAO RP2040: I2C1 on GPIO6 (D4, SDA) and GPIO7 (D5, SCL).
    "i2c": (0, 4, 5),
    # "usb": the USB cable. A Bluetooth serial module (HC-06) on UART0: ("uart", 0, 0, 1)
    # for TX on GP0 and RX on GP1.
    "port": ("usb",),
    # The ADC pin that reads the battery and the divider's ratio (None: no battery):
    # two 100 kOhm resistors from the cell's + to GND, their middle on GP26 (ADC0).
    "battery": (26, 2.0),
    # The face on the +x, -x, +y, -y, +z, -z side of the accelerometer as mounted.
    "faces": (2, 5, 3, 4, 1, 6),
    "period_ms": 10,  # 100 samples a second
}


def open_port(spec):
    if spec[0] == "usb":
        return UsbPort()
    return UartPort(spec[1], spec[2], spec[3])


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
    port.write(die.boot(clock.now()))
    next_sample = clock.now()
    next_battery = next_sample + 2000
    while True:
        now = clock.now()
        if now >= next_sample:
            x, y, z = accel.read()
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


main()
