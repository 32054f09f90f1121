"""Pairings (CSV, Berger round robin, Swiss) and a round's set-ups."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.tournament.pairing import (
    Game,
    Pairing,
    PairingError,
    balance,
    from_csv,
    round_robin,
    swiss,
)
from companion.tournament.rounds import RoundError, make_round
from companion.tournament.store import Store


def test_csv_with_header_tables_and_a_bye():
    got = from_csv("table,blue,red\n3,Ada,Bob\n,Cy,Di\n\n# late\n,Eve,\n")
    assert got == [Pairing("Ada", "Bob", 3), Pairing("Cy", "Di", None), Pairing("Eve", None)]


def test_a_name_typed_composed_and_decomposed_is_one_player():
    composed, decomposed = "Jos\u00e9", "Jose\u0301"
    with pytest.raises(PairingError, match=f"players listed twice: {composed}"):
        round_robin([composed, "Bob", decomposed, "Cy"], 1)
    with pytest.raises(PairingError, match=f"players paired twice: {composed}"):
        from_csv(f"1,{composed},Bob\n2,{decomposed},Cy\n")
    assert from_csv(f"1,{decomposed},Bob\n") == [Pairing(composed, "Bob", 1)]


def test_csv_every_bad_line_reported():
    with pytest.raises(PairingError) as err:
        from_csv("1,Ada,Bob\nx,Cy,Di\n2,,Eve\n3,Ada,Fay\n4,A,B,C,D\n", "r1.csv")
    msg = str(err.value)
    assert "r1.csv:2: table 'x'" in msg
    assert "r1.csv:3: player name ''" in msg
    assert "r1.csv:5: 5 columns" in msg
    assert "players paired twice: Ada" in msg


# FIDE Berger table for 6 players (FIDE Handbook C.05, Annex 1), first colour first
BERGER_6 = [
    [(1, 6), (2, 5), (3, 4)],
    [(6, 4), (5, 3), (1, 2)],
    [(2, 6), (3, 1), (4, 5)],
    [(6, 5), (1, 4), (2, 3)],
    [(3, 6), (4, 2), (5, 1)],
]


def test_round_robin_is_the_fide_berger_table():
    names = [str(i) for i in range(1, 7)]
    for r, expected in enumerate(BERGER_6, 1):
        got = [(int(p.blue), int(p.red)) for p in round_robin(names, r)]
        assert got == expected


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8, 10])
def test_round_robin_everyone_meets_everyone_once(n):
    names = [f"P{i}" for i in range(n)]
    rounds = n - 1 if n % 2 == 0 else n
    met = []
    byes = []
    blues = dict.fromkeys(names, 0)
    for r in range(1, rounds + 1):
        pairs = round_robin(names, r)
        seated = [x for p in pairs for x in (p.blue, p.red) if x]
        assert sorted(seated) == sorted(names)
        for p in pairs:
            if p.bye:
                byes.append(p.blue)
            else:
                met.append(frozenset((p.blue, p.red)))
                blues[p.blue] += 1
    assert sorted(met, key=sorted) == sorted(
        (frozenset(c) for c in itertools.combinations(names, 2)), key=sorted
    )
    assert sorted(byes) == (sorted(names) if n % 2 else [])
    # colours as even as a round robin allows: nobody more than one blue off half his games
    games = rounds - (1 if n % 2 else 0)
    assert all(abs(2 * b - games) <= 2 for b in blues.values())
    with pytest.raises(PairingError, match="accepted 1 to"):
        round_robin(names, rounds + 1)


def test_swiss_pairs_within_score_groups_without_rematch():
    names = ["A", "B", "C", "D", "E", "F"]
    games = [Game("A", "B", "blue"), Game("C", "D", "blue"), Game("E", "F", "blue")]
    pairs = swiss(names, games)
    pairs_set = {frozenset((p.blue, p.red)) for p in pairs}
    # winners A, C, E (1 point), losers B, D, F (0): one winner must meet a loser; never a
    # rematch; the best pairing has just one cross-group table
    assert not pairs_set & {frozenset("AB"), frozenset("CD"), frozenset("EF")}
    cross = [p for p in pairs_set if len(p & {"A", "C", "E"}) == 1]
    assert len(cross) == 1


def test_swiss_colours_balanced_and_bye_to_lowest_without_one():
    names = ["A", "B", "C", "D", "E"]
    games = [Game("A", "B", "blue"), Game("C", "D", "red")]
    pairs = swiss(names, games, byes=["E"])
    # scores: A 1, D 1, B 0, C 0, E 0; E had a bye, so the lowest-ranked of the rest with
    # the lowest score, C, has it
    assert [p.blue for p in pairs if p.bye] == ["C"]
    # A and D (blue once, red once) meet; B (red) and E (none) meet
    tables = {frozenset((p.blue, p.red)): p for p in pairs if not p.bye}
    assert set(tables) == {frozenset("AD"), frozenset("BE")}
    assert tables[frozenset("AD")].red == "A"  # A had blue, D had red
    assert tables[frozenset("BE")].blue == "B"  # B had red; E has no colour yet


def test_balance_gives_red_to_the_one_with_more_blues():
    hist = {"A": ["blue", "blue"], "B": ["blue", "red"]}
    assert balance("A", "B", hist) == ("B", "A")
    assert balance("B", "A", hist) == ("B", "A")
    # equal leans: who had blue last gets red
    hist = {"A": ["red", "blue"], "B": ["blue", "red"]}
    assert balance("A", "B", hist) == ("B", "A")


def test_swiss_impossible_without_rematch_is_said():
    games = [Game("A", "B", "blue")]
    with pytest.raises(PairingError, match="rematch"):
        swiss(["A", "B"], games)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12), st.integers(0, 3), st.randoms(use_true_random=False))
def test_swiss_never_pairs_a_rematch_or_a_player_twice(n, rounds, rnd):
    names = [f"P{i}" for i in range(n)]
    games: list[Game] = []
    byes: list[str] = []
    for _ in range(rounds):
        try:
            pairs = swiss(names, games, byes)
        except PairingError:
            return  # small fields run out of new opponents
        seated = [x for p in pairs for x in (p.blue, p.red) if x]
        assert sorted(seated) == sorted(names)
        met = {frozenset((g.blue, g.red)) for g in games}
        for p in pairs:
            if p.bye:
                byes.append(p.blue)
                continue
            assert frozenset((p.blue, p.red)) not in met
            games.append(Game(p.blue, p.red, rnd.choice(["blue", "red"])))


def test_make_round_by_lot_is_reproducible_and_valid(tmp_path):
    store = Store(tmp_path / "s.sqlite", durable=False)
    pairs = [Pairing("Ada", "Bob"), Pairing("Cy", "Di", 9), Pairing("Eve", None)]
    a = make_round(
        store,
        1,
        pairs,
        minutes=3,
        minute_seconds=30,
        colours="lot",
        rng=random.Random(4),
        now=100.0,
    )
    b = make_round(
        store,
        1,
        pairs,
        minutes=3,
        minute_seconds=30,
        colours="lot",
        rng=random.Random(4),
        now=100.0,
    )
    assert a == b
    assert sorted(a) == [1, 9]  # the bye gets no table; table 1 is the first free one
    s = a[1]
    assert {s["blue"], s["red"]} == {"Ada", "Bob"}
    assert s["players"] == {"blue": s["blue"], "red": s["red"]}
    assert (s["round"], s["table"], s["minutes"], s["minute_seconds"], s["game"]) == (
        1,
        1,
        3,
        30.0,
        "iago",
    )
    assert s["drawn_by_lot"] is True and s["colours"] == "lot"
    # over many draws both colours come up for Ada
    seen = {make_round(store, 1, pairs[:1], rng=random.Random(i))[1]["blue"] for i in range(20)}
    assert seen == {"Ada", "Bob"}
    store.close()


def test_make_round_balanced_uses_the_stored_colours(tmp_path):
    store = Store(tmp_path / "s.sqlite", durable=False)
    rec = {"players": {"blue": "Ada", "red": "Bob"}, "loser": "red"}
    store.record_result(1, "g", 1, rec, 1.0)
    got = make_round(store, 2, [Pairing("Ada", "Bob")], colours="balanced")
    assert (got[1]["blue"], got[1]["red"]) == ("Bob", "Ada")
    store.close()


def test_make_round_bad_time_control_names_the_table(tmp_path):
    store = Store(tmp_path / "s.sqlite", durable=False)
    with pytest.raises(RoundError, match="round 1 table 1.*minutes"):
        make_round(store, 1, [Pairing("Ada", "Bob")], minutes=0)
    with pytest.raises(RoundError, match="colours 'random'"):
        make_round(store, 1, [Pairing("Ada", "Bob")], colours="random")
    with pytest.raises(PairingError, match="paired twice: Ada"):
        make_round(store, 1, [Pairing("Ada", "Bob"), Pairing("Ada", "Cy")])
    store.close()
