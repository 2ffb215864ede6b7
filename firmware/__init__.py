"""Reference firmware for the serial devices, in MicroPython (docs/hardware.md).

It runs on the device, not in the companion: nothing here imports the companion's
packages. The logic (``common``, and the classes in ``die`` and ``regie`` other than
their ``main.py``) takes samples and times and returns frames, and runs under CPython
too, where tests/firmware checks it with the companion's own parser and driver.
"""
