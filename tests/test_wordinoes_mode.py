"""Wordinoes on the table service, driven through the simulator's scripted mode (mock pins, a fake
clock): typed tiles, knocks on the buttons, an all-knock, a challenge judged on the OLED and voted
with the buttons, the journal across a power cut, and the saved record."""

import json

import pytest

from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.journal import read_records
from companion.daemon.modes import ModeContext, replay
from companion.daemon.modes.wordinoes import WordinoesMode, parse_setup_line
from companion.daemon.sim import ScriptedTable, parse_sim_script
from companion.games.wordinoes.match import MatchResult, Relation


class StubJudge:
    """Matches identical words only: enough to see the judge's answer reach the screen."""

    def __init__(self, homonyms):
        self.homonyms = homonyms
        self.asked = []

    def match(self, left, right):
        self.asked.append((left, right))
        if left == right:
            rel = (Relation("identical", f"{left} and {right} are the same word", "rulebook"),)
            return MatchResult(left, right, True, rel, False)
        return MatchResult(left, right, False, (), True)


@pytest.fixture
def sim(tmp_path, monkeypatch):
    monkeypatch.setattr(WordinoesMode, "judge_factory", StubJudge)

    def make(resume=False):
        return ScriptedTable(
            TableConfig(number=3, game="wordinoes"),
            set_judge({"QI"}),
            tmp_path / "journal.jsonl",
            resume=resume,
        )

    return make


def run(table, script: str) -> dict:
    with open(table.journal_file.with_suffix(".out"), "w") as out:
        return table.run(parse_sim_script(script.strip().splitlines()), out=out)


# 12 unseen tiles, 3 each: the bag keeps 6
GAME = """
0 type Ann Bob hand=3 tiles=12
1 type Bob APPLE PIE
2 type DOG PIE left
3 press challenge
4 press blue
5 press red
6 press red
7 type knock
8 type SUN DOG / CAT HAT
9 type HAT BAND right
10 type BAND HAND right
11 press blue
"""


def test_a_game_with_knocks_an_all_knock_and_a_challenge_played_to_its_end(sim):
    s = sim()
    final = run(s, GAME)
    # 1: Bob starts with APPLE/PIE; Ann is next. 2: Ann lays DOG/PIE at the left: PIE + APPLE.
    # 3: Bob (the other player) challenges; the judge is asked about PIE + APPLE.
    # 4-5: Ann votes valid (blue), Bob not (red): a tie keeps the tile, Bob draws (bag 5).
    # 6: Bob is on turn and knocks with his button (bag 4). 7: Ann knocks (bag 3): all knocked,
    # Bob, the first to knock, draws two (bag 1) and lays them. 9: Bob plays, 10: Ann plays.
    # 11: Bob knocks and takes the last tile: the bag is empty, the fewest tiles win.
    chain = final["chains"]["table"]
    assert chain["tiles"] == [
        ["SUN", "DOG"], ["DOG", "PIE"], ["APPLE", "PIE"], ["CAT", "HAT"], ["HAT", "BAND"],
        ["BAND", "HAND"],
    ]  # fmt: skip
    assert final["bag"] == 0 and final["status"] == "finished"
    # Ann: 3 - 1 + 1 (knock) - 1 = 2; Bob: 3 - 1 (start) + 1 (challenge) + 1 (knock) - 1 + 1 = 4
    assert {p: h["count"] for p, h in final["hands"].items()} == {"Ann": 2, "Bob": 4}
    assert final["winner"] == "Ann" and final["end_reason"] == "the bag is empty"
    (challenge,) = final["challenges"]
    assert challenge["words"] == ["PIE", "APPLE"] and challenge["challenger"] == "Bob"
    assert challenge["votes"] == {"Ann": True, "Bob": False} and challenge["removed"] is False
    assert challenge["judge"]["summary"] == "NO MATCH FOUND: vote"
    # the record is saved with the result
    assert s.service.records_saved == 1
    saved = json.loads(s.service.last_record_path.read_text())
    assert saved["result"]["winner"] == "Ann" and saved["result"]["game"] == "wordinoes"
    kinds = [r["kind"] for r in saved["record"] if not r["kind"].startswith("_")]
    assert kinds == [
        "setup", "start", "play", "challenge", "vote", "vote", "knock", "knock", "open", "play",
        "play", "knock",
    ]  # fmt: skip


def test_the_judge_answers_on_the_oled_before_the_vote(sim):
    s = sim()
    run(s, "\n".join(GAME.strip().splitlines()[:4]))
    pub = s.service.published
    assert pub.status == "challenge:vote" and pub.lights == {"blue": True, "red": True}
    assert pub.prompt.startswith("Ann:")
    # page 2 of the vote screen shows the evidence; the frame is drawn on the mock OLED
    assert s.devices.display.image is not None


def test_bad_entries_change_nothing_and_say_why(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ann Bob hand=3 tiles=12
        1 type Bob APPLE PIE
        2 type DOG PIE middle
        3 type DOG left
        4 press challenge
        """,
    )
    assert final["chains"]["table"]["length"] == 1 and final["turn"] == "Ann"
    assert "nothing to challenge" in s.service.published.message


def test_three_players_say_who_challenges(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ann Bob Cy hand=2 tiles=12
        1 type Cy APPLE PIE
        2 type PIE PIE right
        3 press challenge
        4 type Bob
        5 type yes
        6 type no
        7 type no
        """,
    )
    (ch,) = final["challenges"]
    assert ch["challenger"] == "Bob" and ch["judge"]["summary"] == "MATCH: identical"
    # two against one: the tile is removed, Ann takes it back and draws one
    assert ch["removed"] is True and final["hands"]["Ann"]["count"] == 3
    assert final["turn"] == "Bob"


def test_a_player_out_can_still_be_challenged_then_the_table_confirms(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ann Bob hand=2 tiles=8
        1 type Bob APPLE PIE
        2 type PIE PIE right
        3 type knock
        4 type PIE CRUST right
        5 frame
        """,
    )
    # Ann laid her second and last tile: she is out, but Bob may still challenge it
    assert final["winner"] == "Ann" and final["end_reason"] == "out"
    assert s.service.published.status == "out" and s.service.records_saved == 0
    final = run(s, "6 press challenge\n7 press red\n8 press red")
    # taken back: Ann holds it again and draws one; the game goes on with Bob
    assert final["status"] == "playing" and final["hands"]["Ann"]["count"] == 2
    final = run(s, "9 type CRUST PIE left\n10 confirm")
    assert s.service.records_saved == 0 and final["turn"] == "Ann"


def test_confirm_ends_a_game_won_by_going_out(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ann Bob hand=2 tiles=8
        1 type Bob APPLE PIE
        2 type PIE PIE right
        3 type knock
        4 type PIE CRUST right
        5 confirm
        """,
    )
    assert final["winner"] == "Ann" and s.service.records_saved == 1


def test_the_game_survives_a_power_cut(sim):
    s = sim()
    run(s, "\n".join(GAME.strip().splitlines()[:7]) + "\n7 kill")
    resumed = sim(resume=True)
    final = run(resumed, "\n".join(GAME.strip().splitlines()[7:]))
    assert final["winner"] == "Ann" and final["bag"] == 0


def test_replaying_the_journal_rebuilds_the_game(sim):
    s = sim()
    run(s, "\n".join(GAME.strip().splitlines()[:9]))
    records, _, _ = read_records(s.journal_file)
    fresh = WordinoesMode(ModeContext(table=TableConfig(game="wordinoes")))
    replay(fresh, records[1:])
    assert fresh.state(0) == s.service.mode.state(0)


def test_setup_line_options_and_errors():
    setup = parse_setup_line("Ann Bob Cy hand=5 tiles=40 multi=2 faceup homonyms")
    assert setup["players"] == ["Ann", "Bob", "Cy"] and setup["tiles"] == 40
    assert setup["settings"] == {
        "hand_size": 5, "tiles_per_turn": 2, "face_up": True, "homonyms": True,
    }  # fmt: skip
    with pytest.raises(ValueError, match="accepted hand=N"):
        parse_setup_line("Ann Bob hand=five")
    with pytest.raises(ValueError, match="needs more than 20"):
        parse_setup_line("Ann Bob tiles=20")


def test_the_real_judge_answers_a_challenge(tmp_path, monkeypatch):
    from companion.games.wordinoes.match import MatchJudge

    monkeypatch.setattr(
        WordinoesMode, "judge_factory", lambda homonyms: MatchJudge(lexicon={"handbag"})
    )
    s = ScriptedTable(TableConfig(game="wordinoes"), set_judge({"QI"}), tmp_path / "j.jsonl")
    final = run(
        s,
        """
        0 type Ann Bob hand=3 tiles=12
        1 type Bob BAND AID
        2 type CAT HAND left
        3 press challenge
        """,
    )
    # the start is laid BAND/AID as typed; CAT/HAND at the left end: HAND + BAND, a rhyme (AE N D)
    assert final["challenges"][0]["words"] == ["HAND", "BAND"]
    assert final["judge"]["summary"] == "MATCH: rhyme"
    assert "AE N D" in final["judge"]["relations"][0]["evidence"]


def test_a_missing_judge_cache_is_said_and_never_built_at_the_table(tmp_path, monkeypatch, capsys):
    # a box whose install did not build the judge's cache: the table service says so and
    # judges from the sources; building it (520 MB once, beside the clock) is the installer's job
    from companion.games.wordinoes import judgecache, match

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "fresh-data"))
    warmed = []
    monkeypatch.setattr(match, "warm_up", lambda cached=True: warmed.append(cached))
    mode = WordinoesMode(ModeContext(table=TableConfig(game="wordinoes")))
    mode._warming.join(10)
    assert "the Wordinoes judge's cache" in capsys.readouterr().err
    assert "companion wordinoes warm" in judgecache.cache_problem()
    assert warmed == [False]  # the sources are opened, no cache is built
    assert mode._cached is False  # its judges are made uncached
    assert not judgecache.cache_path().exists()


# Cy's PIE challenged by Bob, the vote two against one: the tile is removed at 6.5 s
VOTED_OUT = """
0 type Ann Bob Cy hand=2 tiles=12
1 type Cy APPLE PIE
2 type PIE PIE right
3 press challenge
4 type Bob
5 type no
6 type no
6.5 type yes
"""


def test_the_votes_outcome_is_shown_whole_and_said(sim, monkeypatch):
    from companion.daemon import screen
    from tests.test_oled import drawn

    s = sim()
    run(s, VOTED_OUT)
    svc = s.service
    # the terminal says the vote's result (two against one: the tile is removed)
    assert "The vote: tile removed (1 for, 2 against)" in svc.published.message
    for size in ((128, 64), (256, 64)):
        turns = [
            [
                text
                for text, _, _ in drawn(
                    svc.mode.view(6.5 + n * screen.TURN_SECONDS).frame, size, monkeypatch
                )
            ]
            for n in range(2)
        ]
        first = " ".join(turns[0])
        # the verdict and the count, each whole, from the first turn on
        assert "TILE REMOVED" in first and "1 for, 2 against" in first, (size, turns)


def test_after_the_vote_the_next_player_types_and_sees_his_move(sim, monkeypatch):
    # the vote's page stayed 6 s whatever was played meanwhile, and without a prompt: the
    # simulator's keys were then the buttons, so typing 'knock' pressed challenge ('c')
    from tests.test_oled import drawn

    s = sim()
    run(s, VOTED_OUT)
    assert s.service.mode.view(7).prompt == "Bob: WORD WORD left|right, or knock"
    run(s, "8 type knock\n")
    texts = " ".join(t for t, _, _ in drawn(s.service.mode.view(8).frame, (128, 64), monkeypatch))
    assert "THE VOTE" not in texts and "Cy to play" in texts, texts
