"""Serial devices: the wire protocol, the link, the device drivers and their emulators.

Bytes become typed device events here; what an event means for a game is for the
companion and the rules to decide.
"""
