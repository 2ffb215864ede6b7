"""The Regie sensors: beams for chips, Hall sensors for the levels and the box."""
