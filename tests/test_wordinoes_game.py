"""The game of Wordinoes against the rulebook ("Setup", "Turns", "Challenges", "Ending the Game",
"Variations"). Bags are written out in draw order, so every expectation is worked out by hand."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.games.wordinoes.game import (
    AllKnocked,
    ChallengeSettled,
    Game,
    GameError,
    GameOver,
    Status,
    TableSettings,
    Tile,
)
from companion.games.wordinoes.replay import ScriptError, replay_lines

# Ann is dealt the first three, Bob the next three (hand size 3), the rest stay in the bag in order
DEAL = [
    "POLICE/MAN", "HAND/LAND", "DOG/CAT",       # Ann
    "APPLE/PIE", "HOLE/WORD", "SAND/FISH",     # Bob: APPLE is the first word alphabetically
    "BAG/ONE", "BAG/TWO", "BAG/THREE", "BAG/FOUR", "BAG/FIVE", "BAG/SIX",
]  # fmt: skip


def new_game(bag=DEAL, players=("Ann", "Bob"), **kw):
    return Game(list(players), list(bag), TableSettings(hand_size=3, **kw))


def total_tiles(game):
    chains = sum(len(c.placements) for c in game.chains.values())
    drawn = len(game.drawn) if game.drawn else 0
    return len(game.bag) + sum(len(h) for h in game.hands.values()) + chains + drawn


# --- set-up ------------------------------------------------------------------------------------


def test_setup_deals_and_the_first_word_alphabetically_starts():
    g = new_game()
    # Bob holds APPLE: he lays APPLE/PIE in the centre; play goes clockwise to Ann
    assert g.chains["table"].left_word == "APPLE" and g.chains["table"].right_word == "PIE"
    assert g.turn == "Ann"
    assert [str(t) for t in g.hands["Ann"]] == ["POLICE/MAN", "HAND/LAND", "DOG/CAT"]
    assert len(g.hands["Bob"]) == 2 and len(g.bag) == 6


def test_blank_ends_are_not_words_for_the_start():
    bag = ["*/ZOO", "BEE/HIVE", "CAT/DOG", "YAK/YAM"] + ["X/Y"] * 3
    g = Game(["Ann", "Bob"], bag, TableSettings(hand_size=2))
    # words held: ZOO BEE HIVE (Ann), CAT DOG YAK YAM (Bob): BEE is first
    assert g.chains["table"].placements[0].tile.words == ["BEE", "HIVE"]
    assert g.turn == "Bob"


def test_setup_needs_enough_tiles_and_players():
    with pytest.raises(GameError, match="needs more than 6"):
        new_game(bag=DEAL[:6])
    with pytest.raises(GameError, match="2 to 12 players"):
        new_game(players=("Ann",))
    with pytest.raises(GameError, match="are not all different"):  # é composed, decomposed
        new_game(players=("Jos\u00e9", "Jose\u0301"))
    with pytest.raises(GameError, match="hand_size 0 is out of range"):
        TableSettings(hand_size=0)


def test_tile_parsing_and_errors():
    assert Tile.parse(["police", "man"]) == Tile("POLICE", "MAN")
    assert Tile.parse("*/MAN").words == ["MAN"]
    with pytest.raises(GameError, match="not a tile"):
        Tile.parse("POLICE")
    with pytest.raises(GameError, match="not a word"):
        Tile("POL1CE", "MAN")


# --- turns -------------------------------------------------------------------------------------


def test_play_at_the_right_end_then_the_left_end_turning_the_tile():
    g = new_game()
    (played, passed) = g.play("Ann", ["DOG", "CAT"], "right")
    assert played.adjoining == ("PIE", "DOG")
    assert passed.player == "Bob"
    # Bob lays WORD/HOLE turned round at the left end: HOLE touches APPLE
    (played, _) = g.play("Bob", ["WORD", "HOLE"], "left")
    assert played.adjoining == ("HOLE", "APPLE")
    assert [t for t in g.snapshot()["chains"]["table"]["tiles"]] == [
        ["WORD", "HOLE"], ["APPLE", "PIE"], ["DOG", "CAT"],
    ]  # fmt: skip


def test_illegal_actions_raise_and_change_nothing():
    g = new_game()
    before = g.snapshot("*")
    with pytest.raises(GameError, match="it is Ann's turn"):
        g.play("Bob", "HOLE/WORD", "right")
    with pytest.raises(GameError, match="not in Ann's hand"):
        g.play("Ann", "HOLE/WORD", "right")
    with pytest.raises(GameError, match="accepted: left, right"):
        g.play("Ann", "DOG/CAT", "middle")
    with pytest.raises(GameError, match="not a player"):
        g.knock("Zed")
    with pytest.raises(GameError, match="no tile to challenge"):
        g.challenge_last("Bob")
    with pytest.raises(GameError, match="not now"):
        g.vote("Bob", True)
    assert g.snapshot("*") == before


def test_knock_draws_one_and_ends_the_turn():
    g = new_game()
    g.knock("Ann")
    assert [str(t) for t in g.hands["Ann"]][-1] == "BAG/ONE"
    assert g.turn == "Bob" and len(g.bag) == 5


def test_corner_is_recorded_and_words_read_in_chain_order():
    g = new_game()
    (played, _) = g.play("Ann", "MAN/POLICE", "left", corner=True)
    assert played.adjoining == ("POLICE", "APPLE")
    assert g.snapshot()["chains"]["table"]["corners"] == [0]


# --- all knock ---------------------------------------------------------------------------------


def test_all_knock_first_knocker_lays_two_at_the_ends_then_plays():
    g = new_game()
    g.knock("Ann")  # draws BAG/ONE
    notices = g.knock("Bob")  # draws BAG/TWO; all have knocked in succession
    assert isinstance(notices[-1], AllKnocked)
    assert notices[-1].player == "Ann"
    assert g.status == Status.ALL_KNOCKED and [str(t) for t in g.drawn] == ["BAG/THREE", "BAG/FOUR"]
    with pytest.raises(GameError, match="Ann knocked first"):
        g.open_ends("Bob", "BAG/THREE", "BAG/FOUR")
    with pytest.raises(GameError, match="drawn tiles are"):
        g.open_ends("Ann", "BAG/THREE", "BAG/FIVE")
    # either way round, no matching rules
    g.open_ends("Ann", "BAG/FOUR", "THREE/BAG")
    chain = g.chains["table"]
    assert (chain.left_word, chain.right_word) == ("BAG", "BAG")
    assert len(chain.placements) == 3
    assert g.status == Status.PLAYING and g.turn == "Ann"
    # those tiles were laid without the rules: there is nothing to challenge
    with pytest.raises(GameError, match="no tile to challenge"):
        g.challenge_last("Bob")
    assert len(g.bag) == 2 and total_tiles(g) == len(DEAL)


def test_a_play_breaks_the_knocking_succession():
    g = new_game()
    g.knock("Ann")
    g.play("Bob", "HOLE/WORD", "right")
    g.knock("Ann")
    assert g.status == Status.PLAYING and g.knockers == ["Ann"]


def test_all_knock_with_fewer_than_two_left_ends_the_game():
    bag = DEAL[:6] + ["BAG/ONE", "BAG/TWO", "BAG/THREE"]
    g = new_game(bag=bag)
    g.knock("Ann")
    out = g.knock("Bob")  # one tile left in the bag
    assert g.status == Status.FINISHED and isinstance(out[-1], GameOver)
    # Ann holds 4, Bob holds 3: fewest tiles wins
    assert g.winner == "Bob" and "fewer than two" in g.end_reason


# --- challenges --------------------------------------------------------------------------------


def test_challenge_majority_against_removes_the_tile_and_the_player_draws():
    # seats Bob, Ann, Cy: Bob holds APPLE and starts, Ann is next
    bag = DEAL[3:6] + DEAL[:3] + ["CY/ONE", "CY/TWO", "CY/THREE"] + DEAL[6:]
    g = Game(["Bob", "Ann", "Cy"], bag, TableSettings(hand_size=3))
    g.play("Ann", "DOG/CAT", "right")  # PIE + DOG
    g.challenge_last("Bob")
    assert g.status == Status.CHALLENGE and g.snapshot()["challenge"]["tile"] == ["DOG", "CAT"]
    g.vote("Ann", True)
    g.vote("Bob", False)
    out = g.vote("Cy", False)
    settled = [n for n in out if isinstance(n, ChallengeSettled)][0]
    assert settled.removed and settled.drawer == "Ann"
    assert g.chains["table"].right_word == "PIE"
    assert "DOG/CAT" in [str(t) for t in g.hands["Ann"]] and len(g.hands["Ann"]) == 4
    assert g.turn == "Cy" and g.status == Status.PLAYING


def test_challenge_tie_keeps_the_tile_and_the_challenger_draws():
    g = new_game()
    g.play("Ann", "DOG/CAT", "right")
    g.challenge_last("Bob")
    g.vote("Ann", True)
    with pytest.raises(GameError, match="has voted already"):
        g.vote("Ann", True)
    out = g.vote("Bob", False)  # one for, one against: a tie
    settled = [n for n in out if isinstance(n, ChallengeSettled)][0]
    assert not settled.removed and settled.drawer == "Bob"
    assert g.chains["table"].right_word == "CAT"
    assert len(g.hands["Bob"]) == 3 and g.turn == "Bob"


def test_no_challenge_of_ones_own_tile_or_after_the_next_action():
    g = new_game()
    g.play("Ann", "DOG/CAT", "right")
    with pytest.raises(GameError, match="his own tile"):
        g.challenge_last("Ann")
    g.knock("Bob")
    with pytest.raises(GameError, match="no tile to challenge"):
        g.challenge_last("Ann")


# --- the end -----------------------------------------------------------------------------------


def test_first_out_wins_unless_the_last_tile_is_taken_back():
    g = new_game()
    g.play("Ann", "DOG/CAT", "right")
    g.play("Bob", "HOLE/WORD", "right")
    g.play("Ann", "HAND/LAND", "right")
    g.play("Bob", "SAND/FISH", "right")  # Bob is out
    assert g.status == Status.FINISHED and g.winner == "Bob" and g.end_reason == "out"
    g.challenge_last("Ann")
    g.vote("Ann", False)
    g.vote("Bob", True)  # a tie: the tile stays and Bob still wins
    assert g.status == Status.FINISHED and g.winner == "Bob"


def test_an_out_tile_removed_by_the_vote_resumes_the_game():
    g = Game(["Ann", "Bob", "Cy"], DEAL[:6] + ["CY/ONE", "CY/TWO", "CY/THREE"] + DEAL[6:],
             TableSettings(hand_size=1))  # fmt: skip
    # hands: Ann POLICE/MAN, Bob HAND/LAND, Cy DOG/CAT; DOG is first: Cy starts and is out at once
    assert g.status == Status.FINISHED and g.winner == "Cy"
    g2 = new_game()
    g2.play("Ann", "DOG/CAT", "right")
    g2.play("Bob", "HOLE/WORD", "right")
    g2.play("Ann", "HAND/LAND", "right")
    g2.play("Bob", "SAND/FISH", "right")
    g2.challenge_last("Ann")
    g2.vote("Ann", False)
    out = g2.vote("Bob", False)
    assert g2.status == Status.PLAYING and g2.winner is None
    assert len(g2.hands["Bob"]) == 2 and g2.turn == "Ann"
    assert not any(isinstance(n, GameOver) for n in out)


def test_empty_bag_ends_the_game_fewest_tiles_wins_or_a_draw():
    bag = DEAL[:6] + ["BAG/ONE", "BAG/TWO"]
    g = new_game(bag=bag)
    g.play("Ann", "DOG/CAT", "right")  # Ann 2
    g.knock("Bob")  # Bob 3, bag 1
    g.knock("Ann")  # Ann 3, bag empty: the game ends
    assert g.status == Status.FINISHED and g.draw and g.winner is None
    g = new_game(bag=bag)
    g.play("Ann", "DOG/CAT", "right")
    g.knock("Bob")
    g.play("Ann", "HAND/LAND", "right")  # Ann 1
    g.knock("Bob")  # bag empty: Ann 1, Bob 4
    assert g.winner == "Ann" and not g.draw and g.end_reason == "the bag is empty"


# --- variations --------------------------------------------------------------------------------


def test_multiple_play_lets_a_turn_lay_several_tiles():
    g = new_game(tiles_per_turn=2)
    g.play("Ann", "DOG/CAT", "right")
    assert g.turn == "Ann"
    with pytest.raises(GameError, match="a tile was played this turn"):
        g.knock("Ann")
    g.play("Ann", "MAN/POLICE", "left")
    assert g.turn == "Bob"
    g.play("Bob", "HOLE/WORD", "right")
    g.end_turn("Bob")
    assert g.turn == "Ann"
    with pytest.raises(GameError, match="no tile played this turn"):
        g.end_turn("Ann")


def test_face_up_shows_every_hand_face_down_only_counts():
    assert "tiles" not in new_game().snapshot()["hands"]["Ann"]
    assert "tiles" in new_game().snapshot("Ann")["hands"]["Ann"]
    assert "tiles" in new_game(face_up=True).snapshot()["hands"]["Bob"]


def test_patience_is_lost_by_holding_more_than_the_limit():
    g = Game(["Pat"], DEAL, TableSettings(variant="patience", hand_size=3, hand_limit=3))
    # Pat holds POLICE/MAN, HAND/LAND, DOG/CAT: CAT is his first word and starts his chain
    assert g.chains["Pat"].left_word == "CAT" and len(g.hands["Pat"]) == 2
    g.knock("Pat")  # 3 tiles held
    assert g.status == Status.PLAYING and g.turn == "Pat"
    g.knock("Pat")  # 4 > 3
    assert g.status == Status.FINISHED and g.winner is None and "more than 3" in g.end_reason


def test_patience_is_won_on_reaching_the_target():
    g = Game(["Pat"], DEAL, TableSettings(variant="patience", hand_size=3, target=3))
    g.play("Pat", "MAN/POLICE", "left")
    g.play("Pat", "HAND/LAND", "right")  # start tile + 2 = 3 played
    assert g.status == Status.FINISHED and g.winner == "Pat"


def test_solo_each_builds_a_chain_most_played_wins_when_the_bag_is_empty():
    bag = DEAL[:6] + ["CY/ONE", "CY/TWO", "CY/THREE", "BAG/ONE"]
    g = Game(["Ann", "Bob", "Cy"], bag, TableSettings(variant="solo", hand_size=3))
    assert set(g.chains) == {"Ann", "Bob", "Cy"}
    assert g.turn == "Bob"  # APPLE is the first word of all
    g.play("Bob", "HOLE/WORD", "right")
    g.knock("Cy")  # draws BAG/ONE: the bag is empty, Bob played 2, the others 1
    assert g.status == Status.FINISHED and g.winner == "Bob"


# --- invariants --------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.booleans(), st.lists(st.integers(0, 999), max_size=40))
def test_tiles_are_never_lost_or_made_whatever_is_done(unseen, choices):
    tiles = [f"W{chr(65 + i % 26)}{chr(65 + i // 26)}/X{chr(65 + i % 26)}" for i in range(20)]
    if unseen:
        tiles = ["?"] * 20
    g = Game(["Ann", "Bob", "Cy"], tiles, TableSettings(hand_size=4, tiles_per_turn=2))
    for c in choices:
        p = g.players[c % 3]
        word = "W" + chr(65 + c % 26)
        try:
            match c % 8:
                case 0 | 1:
                    hand = g.hands[p]
                    if hand:
                        tile = hand[c % len(hand)] or (word, "Y")
                        g.play(p, tile, "left" if c % 2 else "right")
                case 2:
                    g.knock(p)
                case 3:
                    g.challenge_last(p)
                case 4:
                    g.vote(p, bool(c % 2))
                case 5:
                    if g.drawn:
                        left, right = (t or (word, "Z") for t in g.drawn)
                        g.open_ends(p, left, right)
                case 6:
                    g.end_turn(p)
                case 7:
                    g.start(p, (word, "V"))
        except GameError:
            pass
        assert total_tiles(g) == 20
        assert g.status != Status.FINISHED or g.turn is None
        assert all(n >= 0 for n in g.played.values())


# --- the replay script and the command line -----------------------------------------------------


def script(*lines):
    setup = {"setup": {"players": ["Ann", "Bob"], "bag": DEAL, "settings": {"hand_size": 3}}}
    return [json.dumps(setup)] + [json.dumps(x) for x in lines]


def test_replay_applies_each_line_and_names_the_bad_one():
    g = replay_lines(
        script({"play": "Ann", "tile": ["DOG", "CAT"], "end": "right"}, {"knock": "Bob"})
    )
    assert g.turn == "Ann" and g.chains["table"].right_word == "CAT"
    with pytest.raises(ScriptError, match=r"<script>:3: knock by Ann: it is Bob's turn"):
        replay_lines(script({"knock": "Ann"}, {"knock": "Ann"}))
    with pytest.raises(ScriptError, match="<script>:2: not JSON"):
        replay_lines([script()[0], "{oops"])
    with pytest.raises(ScriptError, match="unknown Wordinoes setting"):
        replay_lines(['{"setup": {"players": ["A", "B"], "bag": [], "settings": {"hands": 3}}}'])


def test_cli_replay_prints_the_state(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(script({"knock": "Ann"})))
    assert main(["wordinoes", "replay", str(path)]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["turn"] == "Bob" and state["hands"]["Ann"]["count"] == 4 and state["bag"] == 5


# --- tiles the box cannot see ------------------------------------------------------------------


def test_unseen_tiles_the_players_say_the_start_and_every_play():
    g = Game(["Ann", "Bob"], ["?"] * 12, TableSettings(hand_size=3))
    assert g.status == Status.START and g.turn is None
    with pytest.raises(GameError, match="not now"):
        g.play("Ann", "DOG/CAT", "right")
    g.start("Bob", "APPLE/PIE")  # as laid: APPLE at the left
    assert g.chains["table"].left_word == "APPLE" and g.turn == "Ann"
    g.play("Ann", "PIE/DOG", "right")
    assert len(g.hands["Ann"]) == 2 and g.snapshot("Ann")["hands"]["Ann"]["tiles"][0] == ["?", "?"]
    g.challenge_last("Bob")
    g.vote("Ann", False)
    g.vote("Bob", False)  # removed: the tile goes back to Ann's hand, now known, and she draws
    assert ["PIE", "DOG"] in g.snapshot("Ann")["hands"]["Ann"]["tiles"]
    assert len(g.hands["Ann"]) == 4 and total_tiles(g) == 12
    # after the challenge it is Bob's turn (Ann's turn had ended with her play)
    g.knock("Bob")
    g.knock("Ann")  # both knocked in succession: Bob, the first, lays two tiles
    assert g.status == Status.ALL_KNOCKED and g.knockers[0] == "Bob"
    g.open_ends("Bob", "SUN/FUN", "CAT/HAT")  # unseen drawn tiles: any two words
    assert (g.chains["table"].left_word, g.chains["table"].right_word) == ("SUN", "HAT")
    assert total_tiles(g) == 12


def test_the_rulebook_deals_ten_each():
    g = Game(["Ann", "Bob"], ["?"] * 30)
    assert g.settings.hand_size == 10 and g.settings.tiles_per_turn == 1
    assert [len(h) for h in g.hands.values()] == [10, 10] and len(g.bag) == 10


def test_an_unseen_start_tile_is_laid_as_the_players_say():
    g = Game(["Ann", "Bob"], ["?"] * 12, TableSettings(hand_size=3))
    g.start("Ann", "PIE/APPLE")
    assert (g.chains["table"].left_word, g.chains["table"].right_word) == ("PIE", "APPLE")
