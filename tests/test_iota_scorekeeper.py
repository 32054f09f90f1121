"""The Iota scorekeeper: turns, scores, the pile, passes, the end of the game and the winner
(rules: "Para establecer el juego", "¿Cómo se juega?", the end "cuando la pila se acaba")."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.iota.cards import IotaNotationError, deck, parse_card
from companion.games.iota.hints import legal_plays
from companion.games.iota.scorekeeper import (
    IllegalPlay,
    IotaGameError,
    Scorekeeper,
    format_placements,
    parse_placements,
)

# The rules' worked example, typed from the starting card RT2 at 0,0 (see tests/test_iota.py).
EXAMPLE = [
    ("GC2@0,1 BX2@0,2", 6),
    ("RX1@-1,2 GX3@1,2", 6),
    ("YS2@0,3 RT3@-1,3", 34),
    ("YX4@-2,2 GX1@-2,3 RX2@-2,4 BX3@-2,5", 208),
]


def keeper(players=("Ana", "Ben")):
    return Scorekeeper(list(players), parse_card("RT2"))


def test_the_worked_example_as_a_two_player_game():
    game = keeper()
    # 66 cards - 4 each for 2 players - the card turned up = 57 in the pile
    assert game.pile == 57
    for text, score in EXAMPLE:
        assert game.play(text).score == score
    assert game.scores == {"Ana": 6 + 34, "Ben": 6 + 208}
    # 2 + 2 + 2 + 4 cards were laid and drawn again
    assert game.pile == 57 - 10 and game.hands == {"Ana": 4, "Ben": 4}
    assert game.current == "Ana" and not game.finished


def test_turn_order_goes_round_the_table():
    game = keeper(("Ana", "Ben", "Cy"))
    assert game.pile == 66 - 12 - 1
    order = []
    for _ in range(4):
        order.append(game.current)
        game.pass_turn()
    assert order == ["Ana", "Ben", "Cy", "Ana"]


def test_an_illegal_play_leaves_the_game_unchanged():
    game = keeper()
    with pytest.raises(IllegalPlay) as err:
        game.play("GC1@0,1 BX2@0,2")  # numbers 2, 1, 2: neither same nor different
    assert {v.code for v in err.value.result.violations} == {"mixed-number"}
    assert game.current == "Ana" and game.scores == {"Ana": 0, "Ben": 0} and game.pile == 57
    with pytest.raises(IotaNotationError):
        game.play("GC2 at 0,1")
    assert game.turns == []


def test_a_pass_exchanges_cards_and_keeps_the_pile_count():
    game = keeper()
    game.pass_turn(exchange=3)
    assert game.pile == 57 and game.hands["Ana"] == 4 and game.current == "Ben"
    with pytest.raises(IotaGameError):
        game.pass_turn(exchange=5)


def test_the_last_card_with_an_empty_pile_doubles_and_ends_the_game():
    game = keeper()
    game.play("GC2@0,1 BX2@0,2")  # Ana: 6
    game.pile = 0  # the pile ran out (a long game shortened)
    game.hands["Ben"] = 2
    result = game.play("RX1@-1,2 GX3@1,2")  # Ben lays his last 2 cards: 6, doubled
    assert result.score == 12 and result.doublings == ["last-card"]
    assert game.finished and game.ending == "last-card"
    assert game.winners == ["Ben"]
    with pytest.raises(IotaGameError, match="over"):
        game.pass_turn()


def test_playing_part_of_the_hand_with_an_empty_pile_does_not_end_the_game():
    game = keeper()
    game.pile = 0
    game.play("GC2@0,1 BX2@0,2")
    assert not game.finished and game.hands["Ana"] == 2


def test_a_blocked_table_ends_when_everyone_passes_with_an_empty_pile():
    game = keeper()
    game.play("GC2@0,1 BX2@0,2")
    game.pile = 0
    game.pass_turn()
    assert not game.finished
    game.pass_turn()
    assert game.finished and game.ending == "blocked" and game.winners == ["Ana"]


def test_tied_totals_share_the_win():
    game = keeper()
    game.play("GC2@0,1 BX2@0,2")  # 6
    game.play("GX2@1,2")  # BX2 GX2 column: 4 ... and nothing else
    game.end()
    assert game.scores == {"Ana": 6, "Ben": 4} and game.winners == ["Ana"]
    tie = keeper()
    tie.end()
    assert tie.winners == ["Ana", "Ben"]


def test_a_player_cannot_lay_more_cards_than_he_holds():
    game = keeper()
    game.pile = 0
    game.hands["Ana"] = 1
    with pytest.raises(IotaGameError, match="holds 1"):
        game.play("GC2@0,1 BX2@0,2")


@pytest.mark.parametrize("players", [["Solo"], ["A", "B", "C", "D", "E"], ["A", "A"], ["A", " "]])
def test_two_to_four_different_players(players):
    with pytest.raises(IotaGameError):
        Scorekeeper(players, parse_card("RT2"))


def test_a_name_typed_composed_and_decomposed_is_one_player():
    with pytest.raises(IotaGameError, match="two players have the same name"):
        Scorekeeper(["Jos\u00e9", "Jose\u0301"], parse_card("RT2"))
    # as the director's standings count them (names.name_key): capitals and inner spaces
    for pair in (["Παΐσιος", "ΠΑΐΣΙΟΣ".upper()], ["Ada Lovelace", "Ada  Lovelace"]):
        with pytest.raises(IotaGameError, match="two players have the same name"):
            Scorekeeper(pair, parse_card("RT2"))


def test_placement_notation_round_trips():
    text = "*@-1,0 GT2@0,1 BT3@0,2"
    assert format_placements(parse_placements(text)) == text
    with pytest.raises(IotaNotationError, match="two cards on 0,1"):
        parse_placements("GT2@0,1 BT3@0,1")


def test_the_record_lists_every_turn_and_the_result():
    game = keeper()
    game.play("GC2@0,1 BX2@0,2")
    game.pass_turn(1)
    game.end()
    record = game.record()
    assert record["starting_card"] == "RT2" and record["winners"] == ["Ana"]
    assert record["turns"][0]["play"] == "GC2@0,1 BX2@0,2" and record["turns"][0]["score"] == 6
    assert record["turns"][1] == {"number": 2, "player": "Ben", "pass": True, "exchanged": 1}
    assert record["grid"] == "RT2 GC2 BX2"


@settings(max_examples=8, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(2, 4))
def test_every_card_is_somewhere_and_totals_add_up(rnd, n):
    # wild cards are dealt as cards here but kept out of plays (they only slow the hint search)
    pile = deck()
    rnd.shuffle(pile)
    names = [f"P{i}" for i in range(n)]
    game = Scorekeeper(names, pile.pop())
    hands = {name: [pile.pop() for _ in range(4)] for name in names}
    for _ in range(5):
        hand = hands[game.current]
        real = [card for card in hand if not card.is_wild]
        hints = legal_plays(game.grid, real) if rnd.random() < 0.8 else []
        if hints:
            placements = dict(rnd.choice(hints).placements)
            game.play(placements)
            for card in placements.values():
                hand.remove(card)
            while len(hand) < 4 and pile:
                hand.append(pile.pop())
        else:
            game.pass_turn(rnd.randint(0, len(hand)))
        # the table, the hands and the pile hold the 66 cards
        assert len(game.grid) + sum(game.hands.values()) + game.pile == 66
        assert game.pile == len(pile)
        assert sum(game.scores.values()) == sum(t.score for t in game.turns)
        assert all(score >= 0 for score in game.scores.values())
