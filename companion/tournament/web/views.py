"""What the director's pages show, worked out from the store's rows: pure functions, no I/O.

The store (:mod:`companion.tournament.store`) keeps each table's last ``state`` payload as the
table published it (DESIGN.md, "Tournament network": status, mover, minutes or scores,
sand_left, challenge phase, round, players, t, and the fault words the OLED shows), its set-up,
its journal events, the last board the camera read and its results. The functions here turn
those into plain dicts that the templates draw; every one accepts a payload with keys missing or
of the wrong type (a table running older software, a damaged message) and shows what it can,
never raising: a page must never fail because one table sent something odd.

Readings chosen:

- a table's players come from its state (what the table plays now), else from its set-up (what
  it was told to play next); names by colour (``{"blue": .., "red": ..}``), or a list when the
  colours are still to be drawn by lot;
- the status words are the OLED's own (``CHALLENGE``, ``PAUSED``, ``PAUSED RESTARTED``,
  ``... LOST ON TIME``, ``CAMERA UNAVAILABLE``), so a director reads what the players see;
- the sand minute is drawn from ``sand_left`` at the state's arrival; the page runs it down
  between messages while the table is running (the table publishes on every change, not every
  second);
- a result's winner, loser, draw and void are the store's, after the director's corrections
  (:mod:`companion.tournament.outcome` reads them from the record the table sent).
"""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Iterable

from companion.textformats import is_number, spreadsheet_safe
from companion.tournament.outcome import other

COLOURS = ("blue", "red")
GAMES = ("iago", "iota", "wordinoes", "scrabble")
STATUS_WORDS = {"challenge": "CHALLENGE", "paused": "PAUSED", "ready": "READY"}


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _num(value) -> float | None:
    # is_number: an int too large for a float (a table's state may hold anything) is none
    return float(value) if is_number(value) else None


def _str(value) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def players(state: dict, setup: dict) -> dict:
    """The players of a table: ``{"blue": name, "red": name}`` when the colours are known, else
    ``{"names": [..], "lot": True}`` (colours still to be drawn by lot); names are strings.

    Read from the state's ``players`` first, then the set-up's ``players`` (or its ``blue`` and
    ``red`` keys)."""
    for source in (_dict(state), _dict(setup)):
        p = source.get("players")
        if isinstance(p, dict) and any(p.get(c) for c in COLOURS):
            return {c: _str(p.get(c)) for c in COLOURS}
        if isinstance(p, list | tuple) and p:
            if source.get("colours") in COLOURS + ("balanced",) and len(p) == 2:
                # a set-up with fixed colours given as a list: first is blue
                return {"blue": _str(p[0]), "red": _str(p[1])}
            return {"names": [_str(x) for x in p], "lot": True}
        if any(isinstance(source.get(c), str) and source.get(c) for c in COLOURS):
            return {c: _str(source.get(c)) for c in COLOURS}
    return {}


def _game_kind(state: dict, setup: dict) -> str:
    """The game a table plays: the state's ``mode`` (the link names the game id ``game``), a
    ``game`` that names a game, else the set-up's, else Iago."""
    for value in (state.get("mode"), state.get("game"), setup.get("game")):
        if isinstance(value, str) and value.lower() in GAMES:
            return value.lower()
    return "iago"


def faults(state: dict) -> list[str]:
    """The fault words of a state payload (``fault`` a string, or ``faults`` a list), as the
    table's OLED shows them (e.g. ``CAMERA UNAVAILABLE``)."""
    state = _dict(state)
    out: list[str] = []
    f = state.get("fault")
    if isinstance(f, str) and f:
        out.append(f)
    fs = state.get("faults")
    if isinstance(fs, list | tuple):
        out += [_str(x) for x in fs if x]
    return out


def result_of(res: dict) -> dict:
    """A stored result in words: ``res`` is one of ``Store.results()`` (``players``,
    ``winner``, ``loser``, ``draw``, ``void`` already after the director's corrections, and
    ``corrections``). Returns ``{"winner", "loser", "draw", "void", "players", "corrected",
    "scores", "held", "sent", "text"}``; ``text`` is e.g. ``Ada (blue) won``, ``draw``, ``void``,
    ``held: not in a set-up (why)``, with `` (corrected)`` when a correction was made."""
    res = _dict(res)
    record = _dict(res.get("record"))
    inner = _dict(record.get("result"))
    names = {c: _str(v) for c, v in _dict(res.get("players")).items() if c in COLOURS and v}
    winner = res.get("winner") if res.get("winner") in COLOURS else None
    loser = res.get("loser") if res.get("loser") in COLOURS else None
    out = {
        "winner": winner,
        "loser": loser,
        "draw": bool(res.get("draw")),
        "void": bool(res.get("void")),
        "players": names,
        "corrected": bool(res.get("corrections")),
        "scores": _dict(record.get("scores") or inner.get("scores")),
        "held": _str(res.get("held")) or None,
    }
    if out["void"]:
        text = "void"
    elif winner:
        text = f"{names[winner]} ({winner}) won" if names.get(winner) else f"{winner.upper()} won"
    elif out["draw"]:
        text = "draw"
    elif record.get("abandoned") or inner.get("abandoned_at"):
        text = "abandoned"
    else:
        text = "no winner"
    out["sent"] = text  # the outcome as recorded, shown beside why a held result is held
    if out["held"]:
        text = f"held: not in a set-up ({out['held']})"
    out["text"] = text + (" (corrected)" if out["corrected"] else "")
    return out


def change_text(change: dict) -> str:
    """A director's correction in words: ``{"winner": "red"}`` -> ``red won``, ``{"draw":
    true}`` -> ``a draw``, ``{"void": true}`` -> ``void``; anything else as its keys."""
    change = _dict(change)
    if change.get("winner") in COLOURS:
        text = f"{change['winner']} won"
    elif change.get("loser") in COLOURS:
        text = f"{change['loser']} lost"
    elif change.get("draw") is True:
        text = "a draw"
    elif "void" in change:
        text = "void" if change["void"] else "not void"
    elif "accept" in change:
        text = "accepted: counted" if change["accept"] else "held again: not counted"
    else:
        text = ", ".join(f"{k}: {v}" for k, v in change.items() if k != "note") or "no change"
    note = change.get("note")
    return f"{text} ({note})" if isinstance(note, str) and note else text


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return ""
    s = max(0, int(math.ceil(seconds)))
    return f"{s // 60}:{s % 60:02d}"


def tile(row: dict, *, now: float | None = None) -> dict:
    """A hall tile's data for one table row of ``Store.tables()`` (``table``, ``state``,
    ``last_seen``, ``setup``, ``result``). ``now`` (seconds since the epoch, default the wall
    clock) is only used to say how long ago the table was heard from.

    Returns a dict with ``table`` (int), ``game``, ``players`` (see :func:`players`),
    ``mover``, ``minutes`` (by colour, Iago), ``sand_left`` (seconds, or None), ``minute_seconds``,
    ``running`` (bool), ``scores`` (list of (name, score), Iota and Wordinoes), ``words`` (the
    OLED's status words and faults, a list; ``faults`` the faults alone), ``classes`` (the tile's
    look: challenge, paused, finished, fault, silent), ``last_seen`` (epoch seconds or None),
    ``state_at`` (when the state arrived: the row's ``state_received``, else ``last_seen``), ``ago``
    (words), ``result`` (see :func:`result_of`; None when the table's latest result is of an
    earlier round), ``round``.
    """
    row = _dict(row)
    state = _dict(row.get("state"))
    setup = _dict(row.get("setup"))
    number = row.get("table")
    game = _game_kind(state, setup)
    status = _str(state.get("status") or state.get("phase")).lower()
    if status in ("game", "playing"):  # Iota's and Wordinoes' phase while a game is on
        status = "running"
    names = players(state, setup)
    mover = state.get("mover") if state.get("mover") in COLOURS else None
    on_turn = state.get("current", state.get("turn"))
    if mover is None and isinstance(on_turn, str) and on_turn:
        mover = next((c for c in COLOURS if names.get(c) == on_turn), None)
    minutes = {}
    m = state.get("minutes")
    if isinstance(m, dict):
        minutes = {c: _num(m.get(c)) for c in COLOURS}
        minutes = {c: (int(v) if v is not None and v == int(v) else v) for c, v in minutes.items()}
    minute_seconds = _num(state.get("minute_seconds")) or _num(setup.get("minute_seconds"))
    sand = _num(state.get("sand_left"))
    scores = []
    sc = state.get("scores")
    if isinstance(sc, dict):
        scores = [(_str(k), v) for k, v in sc.items() if _num(v) is not None]
    elif isinstance(sc, list):
        for item in sc:
            item = _dict(item)
            if _num(item.get("score")) is not None:
                scores.append((_str(item.get("player") or item.get("name")), item["score"]))
    hands = state.get("hands")
    if not scores and game == "wordinoes" and isinstance(hands, dict):
        for name, hand in hands.items():
            count = _dict(hand).get("count")
            if _num(count) is not None:
                scores.append((_str(name), f"{int(count)} tiles"))
    words: list[str] = []
    phase = _str(state.get("challenge") or state.get("challenge_phase"))
    if status == "paused":
        words.append("PAUSED RESTARTED" if state.get("restarted") else "PAUSED")
    if status == "challenge" or phase:
        words.append("CHALLENGE")
    if status == "finished":
        loser = state.get("loser")
        if state.get("abandoned"):
            words.append("ABANDONED")
        elif loser in COLOURS and game == "iago":
            words.append(f"{loser.upper()} LOST ON TIME")
        else:
            words.append("FINISHED")
    if status == "ready":
        words.append("READY")
    fault_words = faults(state)
    if status == "fault" and not fault_words:
        fault_words.append("FAULT")
    if isinstance(state.get("setup_problem"), str) and state["setup_problem"]:
        fault_words.append(f"SET-UP NOT TAKEN: {state['setup_problem']}")
    if state.get("online") is False or row.get("online") is False:
        fault_words.insert(0, "OFFLINE")
    if isinstance(state.get("claim"), str) and state["claim"]:
        fault_words.insert(0, state["claim"].upper())  # TWO BOXES CLAIM TABLE 6
    words += fault_words
    res = row.get("result")
    round_no = state.get("round", setup.get("round"))
    result = None
    if isinstance(res, dict) and res and _result_is_current(res, round_no, status):
        result = result_of(res)
    classes = [
        name
        for name, on in (
            ("challenge", "CHALLENGE" in words),
            ("paused", status == "paused"),
            ("finished", status == "finished" or (result is not None and status in ("", "ready"))),
            ("fault", bool(fault_words)),
            ("silent", not state),
        )
        if on
    ]
    last_seen = _num(row.get("last_seen"))
    state_at = _num(row.get("state_received")) or last_seen
    now = time.time() if now is None else now
    clocks = scrabble_clocks(state) if game == "scrabble" else {}
    return {
        "clocks": clocks,
        "table": number,
        "game": game,
        "players": names,
        "mover": mover,
        "status": status,
        "minutes": minutes,
        "sand_left": sand,
        "sand_text": _clock(sand),
        "minute_seconds": minute_seconds or 60.0,
        "running": status == "running" and mover is not None and sand is not None,
        "scores": scores,
        "words": words,
        "faults": fault_words,
        "classes": classes,
        "last_seen": last_seen,
        "state_at": state_at,
        "ago": ago(last_seen, now),
        "result": result,
        "round": round_no,
        "heard": bool(state),
    }


def scrabble_clocks(state: dict) -> dict:
    """The crossword game's score and clock by colour, from its state: ``{colour: {"score": n,
    "time": "24:59" or "-1:05", "overtime": bool, "penalty": points}}`` (empty without them)."""
    scores = _dict(state.get("scores"))
    left = _dict(state.get("time_left"))
    penalty = _dict(state.get("overtime_penalty"))
    out = {}
    for c in COLOURS:
        t = _num(left.get(c))
        if t is None:
            text = "–"
        elif t > 0:
            s = int(math.ceil(t - 1e-9))
            text = f"{s // 60}:{s % 60:02d}"
        else:
            s = int(math.floor(-t + 1e-9))
            text = f"-{s // 60}:{s % 60:02d}"
        out[c] = {
            "score": scores.get(c) if _num(scores.get(c)) is not None else "–",
            "time": text,
            "overtime": t is not None and t < 0,
            "penalty": int(_num(penalty.get(c)) or 0),
        }
    return out


def scrabble_board(notation: str | None) -> dict | None:
    """The crossword game's board (15x15 board notation; a lower-case letter a blank) as rows of
    cells ``{"letter", "colour": "tile"|"blank"}`` or None, with the premium of each empty square;
    ``{"error": message}`` when it does not parse; None without a board."""
    if not notation:
        return None
    from companion.games.scrabble.board import ScrabbleError, parse_board
    from companion.games.scrabble.tiles import PREMIUM

    try:
        rows = parse_board(notation)
    except ScrabbleError as exc:
        return {"error": str(exc), "rows": [], "counts": {}}
    grid = []
    for r, line in enumerate(rows):
        cells = []
        for c, ch in enumerate(line):
            if ch == ".":
                kind = PREMIUM.get((r, c), "")
                cells.append({"letter": kind, "colour": f"empty {kind.lower()}"} if kind else None)
            else:
                cells.append({"letter": ch.upper(), "colour": "blank" if ch.islower() else "tile"})
        grid.append(cells)
    return {"rows": grid, "counts": {}, "size": 15, "error": ""}


def scrabble_moves(state: dict) -> list[dict]:
    """The crossword game's moves from its state (``moves``), each ``{"player", "text",
    "score", "total"}`` for the table page."""
    out = []
    moves = state.get("moves")
    for m in moves if isinstance(moves, list) else []:  # a state may hold anything
        m = _dict(m)
        kind = _str(m.get("kind"))
        if kind == "play":
            text = f"{_str(m.get('position'))} {_str(m.get('word'))}"
        else:
            text = {
                "pass": "pass",
                "exchange": f"exchange {_str(m.get('tiles'))}",
                "phony": "play taken back (challenged off)",
                "challenge": "wrong challenge: points",
                "time": "overtime penalty",
                "out": f"went out: ({_str(m.get('tiles'))})",
                "rack": f"unplayed rack {_str(m.get('tiles'))}",
            }.get(kind, kind)
        if m.get("note"):
            text += f" ({_str(m.get('note'))})"
        out.append(
            {
                "player": _str(m.get("player")),
                "text": text,
                "score": m.get("score"),
                "total": m.get("total"),
            }
        )
    return out


def _result_is_current(res: dict, round_no, status: str) -> bool:
    """Whether a table's latest result belongs on its tile: it is of the round the table
    plays now (a result of an earlier round is history, on the standings page), or, without
    rounds, the table is between games."""
    if res.get("round") is not None and round_no is not None:
        return res.get("round") == round_no
    return status in ("finished", "ready", "")


def ago(when: float | None, now: float) -> str:
    """``when`` (epoch seconds) in words relative to ``now``: ``never``, ``just now``, ``12 s
    ago``, ``3 min ago``, ``2 h ago``."""
    if when is None:
        return "never"
    d = max(0.0, now - when)
    if d < 2:
        return "just now"
    if d < 60:
        return f"{int(d)} s ago"
    if d < 3600:
        return f"{int(d // 60)} min ago"
    return f"{int(d // 3600)} h ago"


def reported(round_no: int | None, setups: dict, results: Iterable[dict]) -> dict:
    """The round's progress: ``{"round": R, "reported": N, "tables": M, "text": "N / M
    reported"}``; M counts the round's set-ups, N the distinct tables of the round with a
    result that counts (a held one does not)."""
    if round_no is None:
        return {"round": None, "reported": 0, "tables": 0, "text": "no round published"}
    tables = {int(n) for n in setups}
    done = {r.get("table") for r in results if r.get("round") == round_no and not r.get("held")}
    n = len(done & tables) if tables else len(done)
    m = len(tables)
    return {"round": round_no, "reported": n, "tables": m, "text": f"{n} / {m} reported"}


def board_grid(notation: str | None) -> dict | None:
    """The board in board notation as rows of cells ``{"letter": "A", "colour": "blue"|"red"}``
    or None for an empty cell, with the tile counts by colour; ``{"error": message}`` when the
    notation does not parse; None without a board."""
    if not notation:
        return None
    from companion.games.iago.board import BoardNotationError, parse_board

    try:
        board = parse_board(notation, size=None)
    except BoardNotationError as exc:
        return {"error": str(exc), "rows": [], "counts": {}}
    rows = []
    for r in range(board.size):
        cells = []
        for c in range(board.size):
            letter = board.at(r, c)
            cells.append(
                None if letter is None else {"letter": letter.upper(), "colour": board.colour(r, c)}
            )
        rows.append(cells)
    return {"rows": rows, "counts": board.counts(), "size": board.size, "error": ""}


def describe_event(record: dict) -> str:
    """One journal record of a game in words, for the game's record move by move (Iago's,
    Iota's and Wordinoes' event kinds; an unknown kind is shown by its name)."""
    rec = _dict(record)
    kind = _str(rec.get("kind"))
    role = _str(rec.get("role") or rec.get("player"))
    if kind == "press":
        return f"{role.upper()} pressed"
    if kind == "challenge_button":
        return "challenge button: the sand stops"
    if kind == "words":
        words = " ".join(_words(rec.get("words")))
        if rec.get("unchecked"):  # no lexicon could judge: shown ACCEPTABLE, the arbiter rules
            return f"challenged {words}: ACCEPTABLE, not checked ({NO_LEXICON})"
        verdict = "ACCEPTABLE" if rec.get("valid") else "NOT ACCEPTABLE"
        lex = _str(rec.get("lexicon"))
        return f"challenged {words}: {verdict}" + (f" ({lex})" if lex else "")
    if kind == "override":
        return "the arbiter overrode the verdict"
    if kind == "confirm":
        return "verdict settled, the clock runs" if not role else f"{role} confirmed"
    if kind in ("pause", "resume"):
        return {"pause": "PAUSED by the arbiter", "resume": "resumed"}[kind]
    if kind == "cancel":
        return "challenge called off"
    if kind == "restart":
        return "the table restarted (PAUSED RESTARTED)"
    if kind == "entry":
        if rec.get("pass") is not None:
            return f"pass, exchange {rec.get('pass')}"
        return f"play {_str(rec.get('play'))}"
    if kind == "play":
        return f"{role} plays {_str(rec.get('tile') or rec.get('play') or '')}".strip()
    if kind == "knock":
        return f"{role} knocks"
    if kind == "challenge":
        return f"challenge by {_str(rec.get('challenger'))}"
    if kind == "vote":
        return f"{role} votes {'valid' if rec.get('valid') else 'not valid'}"
    return kind.replace("_", " ") or "(a record without a kind)"


# what the pages say of challenged words no lexicon judged (the table's OLED says the same)
NO_LEXICON = "no lexicon: the arbiter rules"


def _words(value) -> list[str]:
    """A record's words as strings: anything but a list is none (a table's record may hold
    anything; the pages never break on it)."""
    return [_str(w) for w in value] if isinstance(value, list) else []


def challenges(events: Iterable[dict], game: str = "iago") -> list[dict]:
    """Each challenge of a game's events with its words, verdict and evidence: ``{"t",
    "challenger", "words", "verdict", "per_word": {word: bool}, "lexicon", "overridden",
    "unchecked"}``. ``unchecked`` is why no lexicon judged the words ("" when one did): the table
    shows such words ACCEPTABLE and the arbiter rules, an override turning the verdict without
    overriding any lexicon (docs/daemon.md).

    As the tables rule them: the challenge button pressed again before the words calls the
    challenge off, and with the verdict shown settles it (as ``confirm`` does); ``cancel``
    calls off only a challenge waiting for its words. ``game`` ``scrabble`` (the crossword
    game): the challenger is the player on move at the button (no press says it), and an
    ``override`` before the words rules NOT ACCEPTABLE at once, the arbiter's (Iago's tables
    refuse it there), and words of a play whose window had closed (``too_late``) end it as
    ``"too late"``."""
    out: list[dict] = []
    current: dict | None = None
    last_press = None  # the role of the last press: the crossword game's mover is the other
    paused = False  # while paused (a restart comes back paused) the button resumes
    for ev in events:
        rec = _dict(_dict(ev).get("record", ev))
        kind = rec.get("kind")
        if kind in ("pause", "restart", "resume"):
            paused = kind != "resume"
        elif kind == "challenge_button":
            if current is not None:
                waiting = current["verdict"] == "under way"
                if waiting and (game == "scrabble" or current["challenger"] is None):
                    current["verdict"] = "called off"  # pressed again before the words
                    current = None
                elif paused:
                    paused = False  # it resumes the clock
                elif not waiting:
                    current = None  # the verdict shown: settled
                continue
            if paused:
                paused = False
                continue
            challenger = None
            if game == "scrabble" and last_press in ("blue", "red"):
                challenger = other(last_press)
            current = {
                "t": _num(rec.get("t")),
                "challenger": challenger,
                "words": None,
                "verdict": "under way",
                "per_word": {},
                "lexicon": "",
                "overridden": False,
                "unchecked": "",
            }
            out.append(current)
        elif kind == "press":
            if current is None:
                last_press = rec.get("role")
            elif current["challenger"] is None and game != "scrabble":
                current["challenger"] = rec.get("role")
        elif current is not None and kind == "words":
            current["words"] = _words(rec.get("words"))
            current["per_word"] = {
                _str(k).upper(): bool(v) for k, v in _dict(rec.get("per_word")).items()
            }
            current["lexicon"] = _str(rec.get("lexicon"))
            current["unchecked"] = _str(rec.get("unchecked") or "")
            valid = rec.get("valid") or current["unchecked"]
            current["verdict"] = "ACCEPTABLE" if valid else "NOT ACCEPTABLE"
        elif current is not None and kind == "override":
            if current["verdict"] == "under way":
                if game == "scrabble":  # ruled at once by the arbiter, no words judged
                    current.update(words=[], verdict="NOT ACCEPTABLE", overridden=True)
                continue
            # words no lexicon judged: the arbiter's own ruling, no lexicon's overridden
            current["overridden"] = not current["overridden"] and not current["unchecked"]
            if current["verdict"] == "ACCEPTABLE":
                current["verdict"] = "NOT ACCEPTABLE"
            elif current["verdict"] == "NOT ACCEPTABLE":
                current["verdict"] = "ACCEPTABLE"
        elif current is not None and kind == "too_late":
            # the crossword game: words of a play whose window had closed, the clock never held
            if current["verdict"] == "under way":
                current.update(words=_words(rec.get("words")), verdict="too late")
                current = None
        elif current is not None and kind == "cancel":
            if current["verdict"] == "under way":
                current["verdict"] = "called off"
                current = None
        elif current is not None and kind == "confirm" and current["verdict"] != "under way":
            current = None
    return out


def game_record(events: Iterable[dict]) -> list[dict]:
    """The game in progress move by move: ``events`` are ``Store.table(n)["events"]`` (its
    journal records in sequence order). Returns ``{"n", "t", "clock", "text", "kind"}`` per
    record (``n`` its sequence number from 1, ``clock`` the game time as m:ss); the service's
    own records (kinds starting with ``_``) are left out."""
    out = []
    for n, ev in enumerate(events, 1):
        rec = _dict(ev)
        if "record" in rec and "kind" not in rec:  # {"game", "seq", "record"} as sent
            rec = _dict(rec.get("record"))
        kind = _str(rec.get("kind"))
        if kind.startswith("_"):
            continue
        t = _num(rec.get("t"))
        out.append(
            {
                "n": n,
                "t": t,
                "clock": _clock(t) if t is not None else "",
                "text": describe_event(rec),
                "kind": kind,
            }
        )
    return out


RESULT_COLUMNS = (
    "round",
    "table",
    "game",
    "blue",
    "red",
    "winner",
    "loser",
    "draw",
    "void",
    "how",
    "corrected",
    "corrections",
    "received",
    "held",
)


def iso_time(seconds) -> str:
    """Seconds since the epoch as ISO 8601 local time with its offset, to the second
    (``2026-12-06T10:15:02+01:00``); "" for no time."""
    import datetime as _dt

    if not is_number(seconds):
        return ""
    try:
        when = _dt.datetime.fromtimestamp(float(seconds)).astimezone()
    except (OverflowError, OSError, ValueError):
        return ""
    return when.isoformat(timespec="seconds")


def results_csv(results: Iterable[dict]) -> str:
    """The results as CSV, the one format of ``/results.csv`` and ``companion director results
    --csv`` (header ``round,table,game,blue,red,winner,loser,draw,void,how,corrected,
    corrections,received,held``): one line per game of ``Store.results()``, the outcome after
    the corrections (``winner``/``loser`` colours), how the game ended as the table recorded it,
    each correction as ``who: reason``, ``received`` the time the director stored it (ISO 8601,
    :func:`iso_time`), ``held`` why a result that matches no set-up is not counted. A text cell
    that a spreadsheet would run as a formula is neutralised
    (:func:`companion.textformats.spreadsheet_safe`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(RESULT_COLUMNS)
    for r in sorted(results, key=lambda r: (r.get("round") or 0, r.get("table") or 0)):
        res = result_of(r)
        names = res["players"]
        notes = "; ".join(
            f"{_str(c.get('who'))}: {_str(c.get('reason'))}" for c in r.get("corrections") or []
        )
        w.writerow(
            [
                spreadsheet_safe(cell)
                for cell in (
                    r.get("round"),
                    r.get("table"),
                    r.get("game"),
                    names.get("blue", ""),
                    names.get("red", ""),
                    res["winner"] or "",
                    res["loser"] or "",
                    "yes" if res["draw"] else "no",
                    "yes" if res["void"] else "no",
                    _str(_dict(r.get("record")).get("how")),
                    "yes" if res["corrected"] else "no",
                    notes,
                    iso_time(r.get("received")),
                    res["held"] or "",
                )
            ]
        )
    return buf.getvalue()
