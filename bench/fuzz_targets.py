"""Every parser of the companion as a fuzzing target, with valid seeds and a mutator.

Shared by tests/test_bad_input.py (hypothesis, a few hundred inputs each) and bench/bench_fuzz.py
(10,000 inputs each). A target's ``run(text)`` feeds one input to the parser the way the command
line or the table does; a :class:`~companion.errors.CompanionError` is the clear error the
parser owes bad input, and any other exception is a traceback (a bug).

Inputs are the seeds mutated (characters inserted, removed, doubled, replaced) with the known
troublemakers of :data:`NASTY`: Unicode digits (``²``, ``①``, ``٣``), thousands of digits, numbers
too large for a float, deep nesting, combining accents, NUL, line separators, names that climb
out of a folder.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass

NASTY = (
    "²", "①", "٣", "߀", "Ⅻ", "½", "9" * 5000, "1" * 400, "0" * 50, "1e999", "-1e999", "1e-999",
    "nan", "NaN", "inf", "Infinity", "-0", "1_000", "0x10", "\u0301", "e\u0301", "\u0301\u0302",
    "\x00", "\ufeff", "\u2028", "\x85", "\x1c", "\r", "\n", "\r\n", "\t", " ", "\u00a0", "/",
    "//", "\\", "[", "]", "{", "}", "[" * 600, "{\"a\":" * 600, "a = " + "[" * 500, "\"", "'",
    "\"\"\"", "#", "=", ",", ";", ":", ".", "..", "../../x", "/etc/passwd", "a" * 5000, "\ud800",
    "ß", "ﬀ", "İ", "ǰ", "Ａ", "é", "true", "false", "null", "[]", "{}", "-", "*", "@", "?",
)  # fmt: skip
"""Fragments that broke, or could break, a parser; inserted into seeds by :func:`mutate`."""

ALPHABET = "abcxyzABCXYZ0123456789 ./-_*@#[]{}\",:=\n\t\\'é²①\u0301\x00\u2028"
"""Single characters the mutator inserts or substitutes."""


def mutate(seed: str, rng: random.Random, ops: int | None = None) -> str:
    """``seed`` changed by 1 to 4 random edits (or ``ops``): insert a :data:`NASTY` fragment or a
    character, delete or double a slice, replace a character."""
    text = seed
    for _ in range(ops if ops is not None else rng.randint(1, 4)):
        i = rng.randint(0, len(text))
        op = rng.randrange(6)
        if op <= 1:
            text = text[:i] + rng.choice(NASTY) + text[i:]
        elif op == 2:
            text = text[:i] + rng.choice(ALPHABET) + text[i:]
        elif op == 3:
            text = text[:i] + text[i + rng.randint(1, 8) :]
        elif op == 4:
            j = min(len(text), i + rng.randint(1, 12))
            text = text[:j] + text[i:j] + text[j:]
        elif text:
            k = rng.randrange(len(text))
            text = text[:k] + rng.choice(ALPHABET) + text[k + 1 :]
    return text


def mutate_bytes(seed: bytes, rng: random.Random) -> bytes:
    """``seed`` with 1 to 4 random byte edits (flips, insertions, deletions, a run of one byte)."""
    data = bytearray(seed)
    for _ in range(rng.randint(1, 4)):
        i = rng.randint(0, len(data))
        op = rng.randrange(5)
        if op == 0 and data:
            k = rng.randrange(len(data))
            data[k] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[i:i] = bytes([rng.randrange(256)])
        elif op == 2:
            del data[i : i + rng.randint(1, 6)]
        elif op == 3:
            data[i:i] = bytes([rng.choice((0x7E, 0x0D, 0x03, 0xFF, 0x00))]) * rng.randint(1, 40)
        else:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
    return bytes(data)


@dataclass(frozen=True)
class Target:
    """One parser: ``seeds`` (valid inputs), ``run`` (feeds one input), ``binary`` (bytes), and
    ``known``: inputs that crashed it before (issue 12), always fed first."""

    name: str
    seeds: tuple
    run: Callable
    binary: bool = False
    known: tuple = ()


# --- the targets ------------------------------------------------------------------------------

EMPTY_IAGO = "11/11/11/11/11/11/11/11/11/11/11"


def _iago_board(text: str) -> None:
    from companion.games.iago.board import format_board, parse_board, parse_rows

    for size in (11, None):
        try:
            board = parse_board(text, size)
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is the parser's own error
            _expected(exc)
            continue
        assert parse_board(format_board(board), None) == board
    parse_rows(text, None, blank="?")


def _iota_grid(text: str) -> None:
    from companion.games.iota.cli import read_grid
    from companion.games.iota.grid import format_grid, parse_grid

    try:
        grid = parse_grid(text, "GRID")
    except Exception as exc:  # noqa: BLE001
        _expected(exc)
    else:
        assert parse_grid(format_grid(grid)).cards == grid.cards
    if text != "-":  # '-' reads standard input
        read_grid(text, "GRID")


def _iota_hand(text: str) -> None:
    from companion.games.iota.cards import parse_hand
    from companion.games.iota.scorekeeper import parse_placements

    try:
        parse_hand(text)
    except Exception as exc:  # noqa: BLE001
        _expected(exc)
    parse_placements(text)


def _clock_script(text: str) -> None:
    from companion.clock.replay import parse_script, replay

    events = parse_script(text.splitlines(), "script")
    timer = replay(events)
    timer.snapshot(events[-1].t if events else 0.0)


def _sim_script(text: str) -> None:
    from companion.daemon.sim import parse_sim_script

    parse_sim_script(text.splitlines(), "script")


def _table_toml(text: str) -> None:
    from companion.daemon.config import table_values_from_text, validate

    validate(table_values_from_text(text, "table.toml"), "table.toml")


def _pinmap_toml(text: str) -> None:
    from companion.devices.head.config import head_map
    from companion.devices.pinmap import parse_pinmap

    head_map(parse_pinmap(text, "pinmap.toml"))


def _word_list(text: str) -> None:
    from companion.lexicon.listfile import decode_list
    from companion.lexicon.store import parse_word_list
    from companion.lexicon.words import is_plain_word

    parse_word_list(text.splitlines())  # the lines as given, then the file's bytes as read
    parsed = parse_word_list(decode_list(text.encode("utf-8", "surrogatepass")))
    assert all(is_plain_word(w) for w in parsed.words), parsed.words


def _head_frames(data: bytes) -> None:
    from companion.devices.head.wire import core, proto

    proto.FrameParser().feed(data)
    link = proto.Link(lambda frame: None, 0x1234, 0)
    for ms, part in ((10, data[: len(data) // 2]), (20, data[len(data) // 2 :]), (100, b"")):
        link.feed(part, ms)
        link.poll(ms)

    class Hw:
        def read_buttons(self):
            return (False, False, False)

        def set_led(self, index, on):
            assert index in (0, 1)

        def set_buzzer(self, on):
            pass

        def set_servo_us(self, us):
            assert 0 <= us <= 0xFFFF

        def write(self, frame):
            pass

    class Cfg:
        SAMPLE_MS, DEBOUNCE_SAMPLES, SERVO_MIN_US, SERVO_MAX_US = 5, 4, 500, 2500

    head = core.Head(Hw(), Cfg(), 0x5678, 0)
    for ms, part in ((1, data[: len(data) // 2]), (2, data[len(data) // 2 :]), (100, b"")):
        head.step(ms, part)


_WORDS = {"CAT", "CATS", "QI", "POT", "POTS", "TOP"}


def _iago_record(text: str) -> None:
    from companion.daemon.table_record import check_result, from_table, is_table_record
    from companion.games.iago.cli import _refuse_a_journal
    from companion.games.iago.record import parse_record, replay_record, summary
    from companion.textformats import loads_json

    _refuse_a_journal(text, "record")  # `iago replay` first tells a table's journal apart
    try:
        data = loads_json(text)
    except ValueError:
        data = text
    table = None
    if is_table_record(data):
        table = from_table(data, "record")
        record = table.record
    else:
        record = parse_record(data, "record")
    game = replay_record(record, lexicon=_WORDS)
    summary(game)
    json.dumps(game.to_json())
    if table is not None:
        check_result(game, table.result)


def _vision_corners(text: str) -> None:
    from companion.vision.cli import parse_corners

    parse_corners(text)


def _vision_known(text: str) -> None:
    from companion.vision.cli import board_argument

    board_argument("--known", text, 15)


def _judge_words(text: str) -> None:
    from companion.lexicon.judge import judge

    judge(text.split(" "), _WORDS)


def _wordinoes_words(text: str) -> None:
    from companion.games.wordinoes.match import check_word

    check_word(text, "LEFT")


def _wordinoes_script(text: str) -> None:
    from companion.games.wordinoes.replay import replay_lines

    replay_lines(text.splitlines(), "script")


def _wordinoes_setup(text: str) -> None:
    from companion.daemon.modes.wordinoes import parse_setup_line

    parse_setup_line(text)


def _lexicon_name(text: str) -> None:
    from companion.lexicon.store import canonical_name, check_name

    try:
        check_name(text)
    except Exception as exc:  # noqa: BLE001
        _expected(exc)
    canonical_name(text)


def _mqtt_payload(text: str) -> None:
    from companion.tournament import protocol

    raw = text.encode("utf-8", "surrogatepass")
    for kind in protocol.FROM_TABLE + protocol.TO_TABLE:
        try:
            protocol.decode(kind, 3, raw, f"companion/open/tables/3/{kind}")
        except Exception as exc:  # noqa: BLE001
            _expected(exc)
    protocol.parse_topic("companion/open/", "companion/open/" + text)


def _pairings_csv(text: str) -> None:
    from companion.tournament.pairing import from_csv

    from_csv(text, "pairings.csv")


def _expected(exc: BaseException) -> None:
    """Re-raise ``exc`` unless it is a parser's own clear error."""
    from companion.errors import CompanionError

    if not isinstance(exc, CompanionError):
        raise exc


def _record_seed() -> str:
    return json.dumps(
        {
            "game": "iago",
            "version": 1,
            "players": {"blue": "Ann", "red": "Bob"},
            "minutes": 5,
            "lexicon": "scowl-70",
            "events": [
                {"t": 0, "press": "red"},
                {"t": 40.2, "board": "11/11/11/11/11/4POT4/11/11/11/11/11"},
                {"t": 41, "press": "blue"},
                {"t": 45, "challenge": "red"},
                {"t": 49, "words": ["POT"], "judged": {"POT": True}, "lexicon": "scowl-70-both"},
                {"t": 52, "ruling": "rejected"},
                {"t": 70, "board": "11/11/11/11/11/4POTs3/11/11/11/11/11"},
                {"t": 71, "press": "red"},
            ],
            "end": 80,
        }
    )


def _table_record_seed() -> str:
    settings = {"number": 4, "blue": "Ada", "red": "Bob", "minutes": 2, "minute_seconds": 60.0}
    journal = [
        {"kind": "_game", "mode": "iago", "settings": settings, "t": 0},
        {"kind": "press", "role": "red", "t": 0},
        {"kind": "press", "role": "blue", "t": 20},
        {"kind": "board", "board": "11/11/11/11/11/4CAT4/11/11/11/11/11", "t": 25},
        {"kind": "press", "role": "red", "t": 30},
        {"kind": "challenge_button", "t": 31},
        {"kind": "press", "role": "blue", "t": 32},
        {"kind": "words", "words": ["CAT"], "valid": True, "per_word": {"CAT": True}, "t": 33,
         "lexicon": "w"},
        {"kind": "confirm", "t": 34},
        {"kind": "pause", "t": 40},
        {"kind": "resume", "t": 50},
    ]  # fmt: skip
    result = {"loser": None, "moves_completed": 2, "minutes": {"blue": 2, "red": 2}}
    return json.dumps({"result": result, "settings": settings, "record": journal})


PINMAP = """[backend]
kind = "mock"
[buttons]
blue = 17
red = 27
challenge = 22
bounce_seconds = 0.02
[leds]
blue = 5
red = 6
[buzzer]
pin = 13
[servo]
pin = 18
[display]
driver = "ssd1306"
i2c_port = 1
address = 0x3C
[camera]
kind = "none"
[head]
port = "/dev/companion-head"
buzzer = 8
servo = 15
[head.buttons]
blue = 2
red = 3
challenge = 4
"""

TARGETS: tuple[Target, ...] = (
    Target(
        "iago board notation",
        (EMPTY_IAGO, "11/11/11/11/11/4POT4/11/11/11/11/11", "3/1Ab/c2", "...\n.Q.\n..i"),
        _iago_board,
        known=(EMPTY_IAGO[:-1] + "²", "①" + EMPTY_IAGO[2:], "9" * 5000 + EMPTY_IAGO[2:],
               "...\n.Q²\n.i.", "...\n.Q." + "1" * 30 + "\n..i"),
    ),
    Target(
        "iota grid notation",
        ("RT1 GT2 ./. GS2 .", "RT1", ".", "* BC3\nYX4 .", "rt1 gt2 bt3 yt4"),
        _iota_grid,
        known=("RT1/" + "GT2/" * 2000 + "BT3", "X" * 5000, "RT1\x00"),
    ),
    Target(
        "iota hand and play",
        ("RT1 GS2 *", "GT2@0,1 BT3@0,2", "yx4,*"),
        _iota_hand,
        known=("RT1@" + "9" * 5000 + ",0", "RT1@٣,0"),
    ),
    Target(
        "clock script",
        (
            '{"t": 0, "press": "red"}\n{"t": 12.5, "press": "blue"}\n'
            '{"t": 30, "challenge": "red"}\n{"t": 44, "ruling": "sustained"}\n'
            '{"t": 50, "pause": true}\n{"t": 60, "resume": true}\n',
            '# a comment\n{"t": 1, "press": "blue"}\n\n{"t": 400, "press": "red"}',
        ),
        _clock_script,
        known=('{"t": 1' + "0" * 400 + ', "press": "blue"}', '{"t": ' + "1" * 5000 + "}",
               "[" * 100_000, '{"t": 1e999, "press": "red"}'),
    ),
    Target(
        "sim script",
        ("0 press red\n12.5 press blue\n20 type QI ZA\n21 pause\n30 state # note\n40 kill\n"
         "95 restart\n96 frame",),
        _sim_script,
        known=("٣ press red", "1e999 press red", "1" * 5000 + " state", '"'),
    ),  # fmt: skip
    Target(
        "table.toml",
        (
            '[table]\nnumber = 7\nblue = "Ada"\nred = "Bob"\nminutes = 5\n'
            'minute_seconds = 60.0\ngame = "iago"\nlexicon = ""\n',
            '[table]\ndrawn_by_lot = true\ngame = "iota"\n[wordinoes]\ntiles = 80\n',
        ),
        _table_toml,
        known=("[table]\nnumber = " + "[" * 500 + "]" * 500, "[table]\nnumber = " + "7" * 5000,
               '[table]\nlexicon = "../../x"', "[table]\nminutes = 1e999"),
    ),
    Target(
        "pinmap.toml",
        (PINMAP,),
        _pinmap_toml,
        known=(PINMAP.replace("buzzer = 8", "buzzer = []"),
               PINMAP.replace("buzzer = 8", "buzzer = " + "[" * 500 + "]" * 500),
               PINMAP.replace("servo = 15", "servo = {}")),
    ),
    Target(
        "word list",
        ("cat\nDOG # a comment\n\ncafé\nnaïve\n# only a comment\nqi\n",),
        _word_list,
        known=("\u0301", "cat\n\u0301\n", "\u0301\u0302 # accents"),
    ),
    Target("iago record", (_record_seed(), _table_record_seed()), _iago_record),
    Target("vision --corners", ("10,20,300,22,305,310,8,300", "-5,-5, 10,0 10;10 0,10"), _vision_corners),
    Target(
        "vision --known",
        ("/".join(["15"] * 7 + ["4JETON6"] + ["15"] * 7), "/".join(["..ZAP" + "." * 10] * 15)),
        _vision_known,
        known=("a" * 5000, "a/" * 3000, "x\x00/15", "/" * 40),
    ),
    Target("judge words", ("CAT", "cat QI", "Café"), _judge_words),
    Target("wordinoes match words", ("SUN", "flower", "*", "Æon"), _wordinoes_words),
    Target(
        "wordinoes script",
        (
            json.dumps({"setup": {"players": ["Ann", "Bob"], "settings": {"hand_size": 3}, "bag": [
                "POLICE/MAN", "HAND/LAND", "DOG/CAT", "APPLE/PIE", "HOLE/WORD", "SAND/FISH",
                "BAG/ONE", "BAG/TWO", "BAG/THREE", "BAG/FOUR"]}})
            + '\n{"play": "Ann", "tile": ["DOG", "CAT"], "end": "right"}\n{"knock": "Bob"}\n'
            '{"play": "Ann", "tile": ["HAND", "LAND"], "end": "left"}\n',
        ),
        _wordinoes_script,
    ),
    Target("wordinoes setup line", ("Ann Bob Cy hand=5 tiles=80 multi=2 faceup homonyms",), _wordinoes_setup),
    Target("lexicon names", ("scowl-70", "scowl-80-british-v2", "tournament_2026", "my-list"), _lexicon_name),
    Target(
        "tournament messages",
        (
            '{"game": "g-1", "seq": 4, "record": {"seq": 4, "t": 12.5, "kind": "press"}}',
            '{"game": "g-1", "table": 3, "record": {"result": {}, "round": 2}, "round": 2}',
            '{"status": "running", "t": 12.5, "minutes": {"blue": 4, "red": 6}}',
            '{"board": "11/11/11/11/11/4CAT4/11/11/11/11/11", "trusted": true}',
            '{"online": true}',
            '{"game": "g-1", "events": 12}',
            "tables/3/state",
        ),
        _mqtt_payload,
        known=('{"game": "g", "seq": 1, "record": ' + "[" * 1000 + "}", "tables/²/state",
               '{"t": 1' + "0" * 400 + "}"),
    ),
    Target(
        "pairings csv",
        ("table,blue,red\n1,Ann,Bob\n2,Cy,Di\n,Ed,\n", "# round 2\n3,Ann,Cy"),
        _pairings_csv,
        known=("1,Ann," + "B" * 200_000, "1,Ann,B\x00b", "٣,Ann,Bob"),
    ),
    Target(
        "head serial frames",
        (
            bytes.fromhex("7e0e000001010000000100000000000000000000" "0000"),
            b"\x7e\x02\x01\x00\x21\x00\x01\x00\x00" * 3 + b"\r\x03junk\x7e\x7e",
        ),
        _head_frames,
        binary=True,
    ),
)  # fmt: skip
"""Every parser fuzzed, by name."""


def head_seeds() -> tuple[bytes, ...]:
    """Valid frames of every message type, with their CRCs (and a stream of them)."""
    from companion.devices.head.wire import proto as hp

    frames = [
        hp.encode_frame(0, 0, hp.T_HELLO, hp.pack(hp.T_HELLO, 1, 0x1234, 0x5678, 0, 100)),
        hp.encode_frame(0, 0, hp.T_ACK),
        hp.encode_frame(0, 0, hp.T_HEARTBEAT, hp.pack(hp.T_HEARTBEAT, 100, 0, 0, 0)),
        hp.encode_frame(0, 0, hp.T_REPL, hp.pack(hp.T_REPL, b"REPL")),
        hp.encode_frame(0, 0, hp.T_BUTTON, hp.pack(hp.T_BUTTON, 1, 0, 1, 500)),
        hp.encode_frame(0, 0, hp.T_SERVO, hp.pack(hp.T_SERVO, 1500)),
        hp.encode_frame(1, 0, hp.T_LED, hp.pack(hp.T_LED, 1, 1)),
        hp.encode_frame(2, 0, hp.T_BUZZER, hp.pack(hp.T_BUZZER, 3, 100, 50)),
        hp.encode_frame(3, 0, 0x7F, b"unknown type"),
    ]
    return (*frames, b"".join(frames))


def crc_valid_garbage(rng: random.Random) -> bytes:
    """A frame with a valid CRC around random fields: what a wrong peer or a corrupted frame that
    happens to pass the CRC looks like."""
    from companion.devices.head.wire import proto as hp

    mtype = rng.choice((*hp.FORMATS, rng.randrange(256)))
    payload = bytes(rng.randrange(256) for _ in range(rng.randint(0, hp.MAX_PAYLOAD)))
    return hp.encode_frame(rng.randrange(256), rng.randrange(256), mtype, payload)


def target(name: str) -> Target:
    """The target called ``name``."""
    return next(t for t in TARGETS if t.name == name)


def inputs(t: Target, count: int, seed: int = 12) -> list:
    """``count`` inputs for target ``t``: its seeds, then mutations (deterministic for ``seed``)."""
    rng = random.Random(seed)
    if t.binary:
        seeds = head_seeds() + t.seeds
        out: list = list(seeds) + list(t.known)
        while len(out) < count:
            r = rng.random()
            if r < 0.3:
                out.append(crc_valid_garbage(rng) + rng.choice(seeds))
            elif r < 0.4:
                out.append(bytes(rng.randrange(256) for _ in range(rng.randint(0, 200))))
            else:
                out.append(mutate_bytes(rng.choice(seeds), rng))
        return out[:count]
    out = list(t.seeds) + list(t.known)
    while len(out) < count:
        out.append(mutate(rng.choice(t.seeds), rng))
    return out[:count]


def traceback_of(t: Target, value) -> BaseException | None:
    """None when ``t.run(value)`` returns or raises the parser's own clear error; else the
    exception (a traceback a user would see)."""
    from companion.errors import CompanionError

    try:
        t.run(value)
    except CompanionError:
        return None
    except Exception as exc:  # noqa: BLE001 - what the fuzzing counts
        return exc
    return None
