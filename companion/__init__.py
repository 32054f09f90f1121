"""Table Companion: a Raspberry Pi box beside a tabletop word game (Iago, Iota, Wordinoes)."""

__version__ = "0.1.0"
