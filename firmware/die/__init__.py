"""The electronic die of Uräus: rolls from an accelerometer."""
