"""The table's variations of Wordinoes (rulebook, "Variations"): the form of the game and its
settings.

The rules each variation changes are kept where the rule is: the hand size in :mod:`.turns` (the
deal), several tiles a turn in :mod:`.turns` (``play``), Patience's hand limit and target and
Solo's own chains in :mod:`.turns` and :mod:`.ending`. Homonyms are for the match judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.games.wordinoes.pieces import GameError


class Variant(StrEnum):
    """The form of the game: the rulebook's own, Patience or Solo."""

    STANDARD = "standard"
    PATIENCE = "patience"
    SOLO = "solo"


@dataclass(frozen=True)
class TableSettings:
    """The table's choice of variations (rulebook, "Variations").

    Args:
        hand_size: tiles each player takes at the start (rulebook: 10; "to say 15" or "to say 5").
            1 to 50.
        face_up: hands are played face up, visible to all ("Face Up or On Edge?"): the public view
            of the game shows every hand.
        tiles_per_turn: the most tiles a turn may play ("Multiple Play Wordinoes"); 1 to 10.
        homonyms: "Allow Homonyms?": a word may stand for a homophone (for the match judge).
        variant: standard, patience (one player) or solo (three or more players).
        hand_limit: Patience: the most tiles the player may hold at any time (rulebook: 10).
        target: Patience: tiles to play to win; None means every tile.

    Raises:
        GameError: a setting out of range (all problems at once).
    """

    hand_size: int = 10
    face_up: bool = False
    tiles_per_turn: int = 1
    homonyms: bool = False
    variant: Variant = Variant.STANDARD
    hand_limit: int = 10
    target: int | None = None

    def __post_init__(self) -> None:
        problems = []
        try:
            object.__setattr__(self, "variant", Variant(self.variant))
        except ValueError:
            problems.append(
                f"variant {self.variant!r} is unknown; accepted: "
                + ", ".join(v.value for v in Variant)
            )
        for name, lo, hi in (
            ("hand_size", 1, 50),
            ("tiles_per_turn", 1, 10),
            ("hand_limit", 1, 50),
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                problems.append(f"{name} {value!r} is out of range; accepted: {lo} to {hi}")
        if self.target is not None and (
            not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 1
        ):
            problems.append(f"target {self.target!r} is not a count; accepted: 1 or more, or null")
        for name in ("face_up", "homonyms"):
            if not isinstance(getattr(self, name), bool):
                problems.append(f"{name} {getattr(self, name)!r} is not true or false")
        if problems:
            raise GameError("bad table settings: " + "; ".join(problems))

    @classmethod
    def from_dict(cls, data: dict) -> TableSettings:
        """Settings from a dict (a table.toml section or a script line); unknown keys are errors.

        Raises:
            GameError: an unknown key or a bad value (all problems at once).
        """
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise GameError(
                f"unknown Wordinoes setting(s) {', '.join(unknown)}; accepted: {', '.join(sorted(known))}"
            )
        return cls(**data)

    def to_json(self) -> dict:
        return {
            "hand_size": self.hand_size,
            "face_up": self.face_up,
            "tiles_per_turn": self.tiles_per_turn,
            "homonyms": self.homonyms,
            "variant": self.variant.value,
            "hand_limit": self.hand_limit,
            "target": self.target,
        }
