"""The MCP23017: 16 inputs on I2C, for the Hall sensors of the levels and the box.

Its pins are inputs after power-on; this turns their pull-ups on (about 100 kOhm to
its 3.3 V), so that a bare open-collector Hall switch (A3144) needs no resistor; a
push-pull one (DRV5032FA, run from 3.3 V) drives the input itself and the pull-up does
no harm. Either way the input reads 0 while a magnet is near. ``i2c`` is
``machine.I2C`` or anything with ``readfrom_mem`` and ``writeto_mem``.

GPA7 and GPB7 are left alone: Microchip's current data sheet allows them as outputs
only (used as inputs they can disturb the I2C bus), so a chip gives 14 inputs.
"""

IODIRA = 0x00
GPPUA = 0x0C
GPIOA = 0x12


INPUTS = (0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14)  # GPA0-6, GPB0-6


def bits(data):
    """Bytes GPIOA, GPIOB as the 14 inputs' levels: GPA0 to GPA6, then GPB0 to GPB6."""
    word = data[0] | (data[1] << 8)
    return [(word >> i) & 1 for i in INPUTS]


class MCP23017:
    def __init__(self, i2c, address=0x20):
        self.i2c = i2c
        self.address = address
        i2c.writeto_mem(address, IODIRA, b"\x7f\x7f")  # inputs; GPA7, GPB7 outputs
        i2c.writeto_mem(address, GPPUA, b"\x7f\x7f")  # pull-ups on

    def read(self):
        """The 14 inputs, GPA0 to GPA6 then GPB0 to GPB6: 1 high, 0 low."""
        return bits(self.i2c.readfrom_mem(self.address, GPIOA, 2))
