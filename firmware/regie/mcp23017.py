"""The MCP23017: 16 inputs on I2C, for the Hall sensors of the levels and the box.

Its pins are inputs after power-on; this turns their pull-ups on, so that an
open-collector Hall switch (A3144) or an open-drain one (DRV5032FA) needs no resistor:
the input reads 0 while a magnet is near. ``i2c`` is ``machine.I2C`` or anything with
``readfrom_mem`` and ``writeto_mem``.
"""

IODIRA = 0x00
GPPUA = 0x0C
GPIOA = 0x12


def bits(data, count=16):
    """Bytes GPIOA, GPIOB as a list of ``count`` levels, GPA0 first."""
    word = data[0] | (data[1] << 8)
    return [(word >> i) & 1 for i in range(count)]


class MCP23017:
    def __init__(self, i2c, address=0x20):
        self.i2c = i2c
        self.address = address
        i2c.writeto_mem(address, IODIRA, b"\xff\xff")  # all 16 inputs
        i2c.writeto_mem(address, GPPUA, b"\xff\xff")  # pull-ups on

    def read(self):
        """The 16 inputs, GPA0 to GPA7 then GPB0 to GPB7: 1 high, 0 low."""
        return bits(self.i2c.readfrom_mem(self.address, GPIOA, 2))
