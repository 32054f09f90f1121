"""The board reader's shipped data: the letter classifier (glyphs.npz) and the confidence calibration."""
