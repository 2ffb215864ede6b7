"""Two cheap accelerometers on I2C, read in g: the LIS3DH and the MPU-6050 (with its
kin on GY-521 boards: MPU-6500, MPU-9250 and clones, the same accelerometer registers).

Each is set to about 100 samples a second and +-8 g (a die's landing exceeds 2 g).
``i2c`` is anything with ``readfrom_mem`` and ``writeto_mem`` (``machine.I2C``); the
conversion from the register bytes is plain arithmetic, checked on a host.
"""

import struct


def lis3dh_g(data):
    """Six bytes from OUT_X_L on: 12-bit readings, left-justified, 4 mg a step at +-8 g."""
    x, y, z = struct.unpack("<hhh", data)
    return (x >> 4) * 0.004, (y >> 4) * 0.004, (z >> 4) * 0.004


def mpu6050_g(data):
    """Six bytes from ACCEL_XOUT_H on: big-endian, 4096 steps a g at +-8 g."""
    x, y, z = struct.unpack(">hhh", data)
    return x / 4096, y / 4096, z / 4096


class LIS3DH:
    NAME = "LIS3DH"
    ADDRESSES = (0x18, 0x19)
    WHO_AM_I = 0x0F
    IDS = (0x33,)

    def __init__(self, i2c, address):
        self.i2c = i2c
        self.address = address
        i2c.writeto_mem(address, 0x20, b"\x57")  # CTRL_REG1: 100 Hz, x, y, z on
        i2c.writeto_mem(address, 0x23, b"\xa8")  # CTRL_REG4: block update, +-8 g, 12 bits

    def read(self):
        return lis3dh_g(self.i2c.readfrom_mem(self.address, 0x28 | 0x80, 6))


class MPU6050:
    """The MPU-6050 (WHO_AM_I 0x68) and the chips sold on "GY-521" boards in its place:
    MPU-6500 (0x70), MPU-9250 (0x71), MPU-9255 (0x73) and clones that answer 0x72 or
    0x98. Their accelerometer registers used here are the MPU-6050's."""

    NAME = "MPU-6050"
    ADDRESSES = (0x68, 0x69)
    WHO_AM_I = 0x75
    IDS = (0x68, 0x70, 0x71, 0x72, 0x73, 0x98)

    def __init__(self, i2c, address):
        self.i2c = i2c
        self.address = address
        i2c.writeto_mem(address, 0x6B, b"\x01")  # PWR_MGMT_1: awake, gyro clock
        i2c.writeto_mem(address, 0x1A, b"\x03")  # CONFIG: low-pass 44 Hz
        i2c.writeto_mem(address, 0x19, b"\x09")  # SMPLRT_DIV: 1 kHz / 10 = 100 Hz
        i2c.writeto_mem(address, 0x1C, b"\x10")  # ACCEL_CONFIG: +-8 g

    def read(self):
        return mpu6050_g(self.i2c.readfrom_mem(self.address, 0x3B, 6))


def _hex(number):
    return "0x" + "0123456789abcdef"[(number >> 4) & 0xF] + "0123456789abcdef"[number & 0xF]


def find_accelerometer(i2c):
    """The first LIS3DH or MPU-6050 (or kin) that answers with its WHO_AM_I; OSError if
    none, naming what answered and what its WHO_AM_I said."""
    present = i2c.scan()
    refused = []
    for cls in (LIS3DH, MPU6050):
        for address in cls.ADDRESSES:
            if address not in present:
                continue
            who = i2c.readfrom_mem(address, cls.WHO_AM_I, 1)[0]
            if who in cls.IDS:
                return cls(i2c, address)
            refused.append(
                "at " + _hex(address) + " WHO_AM_I " + _hex(who) + " (a " + cls.NAME + " says "
                + " or ".join(_hex(i) for i in cls.IDS) + ")"
            )  # fmt: skip
    found = ", ".join(_hex(a) for a in present) or "nothing"
    why = "; ".join(refused) if refused else "no chip at 0x18, 0x19, 0x68 or 0x69"
    raise OSError("no LIS3DH or MPU-6050 on the I2C bus (found " + found + "): " + why)
