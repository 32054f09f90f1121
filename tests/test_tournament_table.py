"""The table service's side of a tournament, without a network: a set-up written into table.toml
is taken only between games, and one it cannot use is said and changes nothing."""

from companion.daemon.config import TableConfig, save_table
from companion.daemon.sim import START, FakeClock
from companion.tournament.sim import SimTable


def test_a_ready_table_takes_a_new_set_up_and_a_bad_one_is_said(tmp_path):
    table = SimTable(tmp_path, 4, clock=FakeClock())
    svc = table.service
    header = svc.journal.records[0]
    save_table(TableConfig(number=4, blue="Ada", red="Bob", round=2, minutes=3), table.table_toml)
    svc.run_until(START + 1, table.clock.set)
    cfg = svc.mode.context.table
    assert (cfg.round, cfg.blue, cfg.red, cfg.minutes) == (2, "Ada", "Bob", 3)
    new_header = svc.journal.records[0]
    assert new_header["settings"]["round"] == 2
    assert new_header["game_id"] != header["game_id"]  # a new game, named afresh
    # a file the table cannot use: said, and the set-up stays
    text = table.table_toml.read_text().replace("minutes = 3", "minutes = 0")
    table.table_toml.write_text(text)
    svc.run_until(START + 2, table.clock.set)
    assert "new set-up refused" in svc.published.message
    assert "minutes = 0" in svc.published.message
    assert svc.mode.context.table.minutes == 3
    table.close()


def test_a_game_under_way_keeps_its_set_up_and_the_next_takes_the_new(tmp_path):
    table = SimTable(tmp_path, 5, clock=FakeClock(), minutes=1, minute_seconds=10)
    svc = table.service
    table.press("red")  # blue's move begins: the game is under way
    save_table(
        TableConfig(number=5, blue="Cy", red="Di", round=3, minutes=1, minute_seconds=10),
        table.table_toml,
    )
    svc.run_until(START + 5, table.clock.set)
    assert svc.mode.context.table.blue == "Blue5"
    # blue, on move with his one minute of 10 s, runs out at 10 s: the game is over, its
    # record saved LATE_INPUT_SECONDS (2.5 s) later (a press told late still counts until then)
    svc.run_until(START + 13, table.clock.set)
    assert svc.mode.finished and len(table.records()) == 1
    table.press("challenge")  # the players start the next game: it reads the new set-up
    cfg = svc.mode.context.table
    assert (cfg.round, cfg.blue, cfg.red) == (3, "Cy", "Di")
    table.close()


def test_the_links_tail_sees_a_journal_cut_and_written_anew_with_a_header_as_long(tmp_path):
    """The service takes a set-up by writing a fresh journal in place (same file). The new
    header may be exactly as long as the old one (round 0 -> round 1): the link must read the new
    game's header, not take its records for the old game's."""
    import json

    from companion.tournament.link import _JournalTail

    path = tmp_path / "journal.jsonl"

    def header(game_id: str, rnd: int) -> bytes:
        rec = {"seq": 1, "t": 0.0, "kind": "_game", "game_id": game_id, "settings": {"round": rnd}}
        return (json.dumps(rec) + "\n").encode()

    old = header("a" * 32, 0)
    path.write_bytes(old)
    tail = _JournalTail(path)
    first = tail.poll()
    assert first == ([], False, [json.loads(old)])
    new = header("b" * 32, 1)
    assert len(new) == len(old)
    with open(path, "r+b") as f:  # cut and written in place: the inode stays
        f.truncate(0)
        f.write(new)
    old_rest, reset, records = tail.poll()
    assert (old_rest, reset) == ([], True)
    assert [r["settings"]["round"] for r in records] == [1]
    # appends after it are read as the new game's, once each
    with open(path, "ab") as f:
        f.write(b'{"seq": 2, "t": 1.0, "kind": "press", "role": "red"}\n')
    assert tail.poll() == ([{"seq": 2, "t": 1.0, "kind": "press", "role": "red"}], False, [])
    assert tail.poll() == ([], False, [])
    tail.close()


def _scripted(tmp_path, game, blue="Ada", red="Bob"):
    from companion.daemon.challenge import set_judge
    from companion.daemon.sim import ScriptedTable

    table = TableConfig(number=7, game=game, round=2, blue=blue, red=red)
    return ScriptedTable(table, set_judge({"CAT"}), tmp_path / f"{game}.jsonl")


def _run(sim, tmp_path, *lines):
    import io

    from companion.daemon.sim import parse_sim_script

    return sim.run(parse_sim_script(list(lines)), out=io.StringIO())


def test_an_iota_table_of_a_tournament_takes_the_rounds_players_with_enter(tmp_path):
    """Iota's players are typed at the table; at a tournament's table an Enter takes the round's
    two (blue first), so the director's result names them by colour."""
    import json

    from companion.tournament.link import tournament_record

    sim = _scripted(tmp_path, "iota")
    assert "Ada then Bob" in sim.service.published.prompt
    final = _run(
        sim, tmp_path, "0 confirm", "1 type RT2", "2 type GC2@0,1 BX2@0,2", "3 press blue",
        "4 type end!",
    )  # fmt: skip
    assert final["players"] == ["Ada", "Bob"]
    saved = json.loads(sim.service.last_record_path.read_text())
    record = tournament_record(saved)
    assert (record["round"], record["winner"], record["loser"]) == (2, "blue", "red")


def test_a_wordinoes_table_of_a_tournament_takes_the_rounds_players_with_enter(tmp_path):
    sim = _scripted(tmp_path, "wordinoes")
    assert "Ada then Bob" in sim.service.published.prompt
    final = _run(sim, tmp_path, "0 confirm")
    assert final["players"] == ["Ada", "Bob"]


def test_wordinoes_players_named_with_spaces_are_typed_by_full_or_first_name(tmp_path):
    """A tournament's names may have spaces ("Ada Lovelace"); at the table the starter and the
    challenger are typed by the full name or, when no other player shares it, the first word,
    in any case."""
    sim = _scripted(tmp_path, "wordinoes", blue="Ada Lovelace", red="Bob de Vries")
    final = _run(sim, tmp_path, "0 confirm", "1 type bob de vries APPLE PIE")
    assert final["players"] == ["Ada Lovelace", "Bob de Vries"]
    assert final["turn"] == "Ada Lovelace" and final["chains"]["table"]["length"] == 1
    final = _run(sim, tmp_path, "2 type DOG PIE left", "3 type challenge bob")
    (challenge,) = final["challenges"]
    assert challenge["challenger"] == "Bob de Vries"
    sim2 = _scripted(tmp_path / "2", "wordinoes", blue="Ada Lovelace", red="Ada King")
    final = _run(sim2, tmp_path, "0 confirm", "1 type Ada APPLE PIE")  # two Adas: not a name
    assert final["status"] == "start" and "Ada" in sim2.service.published.message
    final = _run(sim2, tmp_path, "2 type ada king APPLE PIE")
    assert final["turn"] == "Ada Lovelace"


def test_typed_players_still_override_the_rounds(tmp_path):
    sim = _scripted(tmp_path, "iota")
    final = _run(sim, tmp_path, "0 type Cy Di Eve")
    assert final["players"] == ["Cy", "Di", "Eve"]
