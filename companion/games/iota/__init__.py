"""Iota: cards, the grid notation, the rules of a play and its score, hints, and scorekeeping.

Rules: shared/rules/iota-rules-es.txt (the original) and iota-rules-en.md. See docs/iota.md.
Modules: :mod:`.cards`, :mod:`.grid`, :mod:`.rules`, :mod:`.hints`, :mod:`.scorekeeper` (pure),
:mod:`.mode` (the table service's game mode), :mod:`.cli` (``companion iota``).
"""

from companion.games.iota.cards import ALL_CARDS, WILD, Card, IotaNotationError, deck, parse_card
from companion.games.iota.grid import Grid, format_grid, parse_grid
from companion.games.iota.rules import IotaPositionError, PlayResult, check_play, play_cards
from companion.games.iota.scorekeeper import IllegalPlay, IotaGameError, Scorekeeper

__all__ = [
    "ALL_CARDS",
    "WILD",
    "Card",
    "Grid",
    "IllegalPlay",
    "IotaGameError",
    "IotaNotationError",
    "IotaPositionError",
    "PlayResult",
    "Scorekeeper",
    "check_play",
    "deck",
    "format_grid",
    "parse_card",
    "parse_grid",
    "play_cards",
]
