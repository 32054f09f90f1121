"""The classic crossword game (Scrabble): the board and its premium squares, letter values,
scoring a move, the tournament clock (WESPA Game Rules, NASPA Official Tournament Rules), the
game record and GCG. Pure: no I/O, no clocks read; the table mode is
:mod:`companion.daemon.modes.scrabble`."""
