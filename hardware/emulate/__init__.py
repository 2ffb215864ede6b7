"""Emulators of the serial devices over real pseudo-terminals, for tests and the demo."""
