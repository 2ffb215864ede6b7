"""The Regie sensors' board: copied to the board as /main.py (docs/hardware.md).

Only pins, the bus and the port here; the sensors' logic is ``firmware.regie.regie``.
Change CONFIG to your wiring and your frame. CONFIG is checked against the frame's
layout first. An error (a loose wire on the I2C bus) is logged to /error.txt and the
board restarts; the watchdog restarts it if the loop hangs.
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
from firmware.regie.mcp23017 import MCP23017
from firmware.regie.regie import Layout, Regie, check_wiring

CONFIG = {
    # The frame (rules/kits/regie.toml): columns, the top slots' columns, each level's
    # travel in clicks each way.
    "columns": 7,
    "insert_columns": (0, 2, 4, 6),
    "travels": (1, 2, 2, 1, 2, 2),
    # The beams' GPIO pins in Layout.beams() order: insert 0, 2, 4, 6; comp 0 to 6;
    # table left, right.
    "beam_pins": (6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18),
    "beam_blocked": 0,  # the level a blocked beam reads (the 74HC14 inverts: 0)
    # I2C0 on GP4 (SDA), GP5 (SCL) to the MCP23017s at these addresses; the levels' Hall
    # sensors on their inputs in Layout.sensors() order (GPA0 to GPA6, GPB0 to GPB6 of
    # the first, then of the second), the box's three on these GPIO pins (1, 2, 3).
    "i2c": (0, 4, 5),
    "expanders": (0x20, 0x21),
    "box_pins": (19, 20, 21),
    "magnet": 0,  # the level a Hall switch reads with a magnet near (open collector: 0)
    "port": ("usb",),  # or ("uart", 0, 0, 1): UART0, TX GP0, RX GP1 (115200 baud; or
    # another rate after them: ("uart", 0, 0, 1, 9600))
    "clicks_every_ms": 10,
    "settle_before_hello_ms": 300,
}


def main():
    layout = Layout(CONFIG["columns"], CONFIG["insert_columns"], CONFIG["travels"])
    check_wiring(layout, CONFIG["beam_pins"], CONFIG["expanders"], CONFIG["box_pins"])
    pins = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in CONFIG["beam_pins"]]
    bus, sda, scl = CONFIG["i2c"]
    i2c = machine.I2C(bus, sda=machine.Pin(sda), scl=machine.Pin(scl), freq=400000)
    expanders = [MCP23017(i2c, address) for address in CONFIG["expanders"]]
    box = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in CONFIG["box_pins"]]
    level_sensors = len(layout.sensors()) - 3
    port = open_port(CONFIG["port"])
    blocked_level, magnet_level = CONFIG["beam_blocked"], CONFIG["magnet"]
    clock = Clock()
    regie = Regie(serial_number("R1-"), boot_id(), layout, boot_ids=boot_id)

    def read_clicks(now):
        levels = []
        for expander in expanders:
            levels += expander.read()
        readings = levels[:level_sensors] + [p.value() for p in box]
        return regie.clicks(now, [v == magnet_level for v in readings])

    # Where the levels and the box stand at power-on is no move: read them first.
    start = clock.now()
    while clock.now() - start < CONFIG["settle_before_hello_ms"]:
        read_clicks(clock.now())
        time.sleep_ms(CONFIG["clicks_every_ms"])
    port.write(regie.boot(clock.now()))
    next_clicks = clock.now()
    watchdog = start_watchdog()
    while True:
        watchdog.feed()
        now = clock.now()
        port.write(regie.beams(now, [p.value() == blocked_level for p in pins]))
        if now >= next_clicks:
            port.write(read_clicks(now))
            next_clicks = now + CONFIG["clicks_every_ms"]
        data = port.read()
        if data:
            port.write(regie.receive(data, now))
        port.write(regie.tick(now))


run(main)
