"""The OLED read across a table (issue 16): every text a player must read is at least
``screen.MIN_TEXT_PX`` high and on the screen, on the 128 x 64 SSD1306/SSD1309 and the 256 x 64
SSD1322; a text too long for its line is shown in turns, driven by the game time given; the verdict
and the penalty each stay up PAGE_SECONDS; the ready screen says who presses to start whom; a
Chinese name is drawn, not boxes."""

import pytest
from PIL import ImageDraw

from companion.daemon import overlays, screen
from companion.daemon.config import TableConfig
from companion.daemon.modes import ModeContext
from companion.daemon.modes.iago import PAGE_SECONDS, IagoTimerMode
from companion.daemon.modes.iota import IotaMode
from companion.daemon.modes.wordinoes import _message_frame, _play_frame, _vote_frame

SIZES = [(128, 64), (256, 64)]


def drawn(frame, size, monkeypatch) -> list[tuple[str, object, tuple]]:
    """Every text ``frame`` draws on a screen of ``size``: (text, font, ink bounding box)."""
    texts = []
    original = ImageDraw.ImageDraw.text

    def text(self, xy, txt, fill=None, font=None, *args, **kwargs):
        texts.append((txt, font, self.textbbox(xy, txt, font=font)))
        return original(self, xy, txt, fill, font, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(ImageDraw.ImageDraw, "text", text)
        screen.render(frame, *size)
    return texts


def assert_legible(texts, size):
    width, height = size
    assert texts, "nothing drawn"
    for txt, fnt, (left, top, right, bottom) in texts:
        if not txt.strip():
            continue
        assert screen.cap_height(fnt) >= screen.MIN_TEXT_PX, (txt, fnt.size)
        assert left >= 0 and right <= width, (txt, left, right)  # nothing cut at the sides
        assert top >= -1 and bottom <= height + 1, (txt, top, bottom)


def words_over_turns(frame_at, size, monkeypatch, turns=8) -> str:
    return " ".join(t for n in range(turns) for t, _, _ in drawn(frame_at(n), size, monkeypatch))


# --- Iago ---------------------------------------------------------------------------------------


def iago(drawn_by_lot=True, **names) -> IagoTimerMode:
    table = TableConfig(number=7, drawn_by_lot=drawn_by_lot, **names)
    return IagoTimerMode(ModeContext(table, lexicon_name="scowl-70-both"))


def challenge_of(mode, valid=False) -> None:
    mode.apply({"t": 0, "kind": "press", "role": "red"})
    mode.apply({"t": 10, "kind": "press", "role": "blue"})
    mode.apply({"t": 20, "kind": "challenge_button"})
    mode.apply({"t": 21, "kind": "press", "role": "red"})
    words = {"t": 22, "kind": "words", "words": ["DOGZ"], "valid": valid, "per_word": {}}
    mode.apply({**words, "lexicon": "scowl-70-both"})


def iago_screens():
    """(name, mode, t) for every screen of the Iago timer."""
    m = iago(blue="Ada", red="Bob")
    yield "ready", m, 0.0
    m = iago(blue="Alexandra", red="Bartholomew")
    m.apply({"t": 0, "kind": "press", "role": "red"})
    yield "running", m, 30.0
    m = iago()
    m.apply({"t": 0, "kind": "press", "role": "red"})
    m.apply({"t": 10, "kind": "press", "role": "blue"})
    m.apply({"t": 20, "kind": "challenge_button"})
    yield "who", m, 20.0
    m.apply({"t": 21, "kind": "press", "role": "red"})
    yield "words", m, 21.0
    m = iago()
    challenge_of(m)
    yield "verdict", m, 22.0
    yield "penalty", m, 22.0 + PAGE_SECONDS
    m.apply({"t": 30, "kind": "pause"})
    yield "paused in a verdict", m, 30.0
    m = iago()
    m.apply({"t": 0, "kind": "press", "role": "red"})
    m.apply({"t": 5, "kind": "restart"})
    yield "paused restarted", m, 5.0
    m = iago()
    m.apply({"t": 0, "kind": "press", "role": "red"})
    m.advance(10_000)
    yield "lost on time", m, 10_000.0


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", [s[0] for s in iago_screens()])
def test_every_iago_screen_is_legible_in_every_turn(monkeypatch, size, name):
    mode, t = next((m, t) for n, m, t in iago_screens() if n == name)
    for k in range(6):  # six turns: every part of every text shown in turns
        texts = drawn(mode.view(t + k * screen.TURN_SECONDS).frame, size, monkeypatch)
        assert_legible(texts, size)


def test_status_lines_too_long_for_a_line_are_shown_in_turns(monkeypatch):
    mode = iago()
    mode.apply({"t": 0, "kind": "press", "role": "red"})
    mode.apply({"t": 5, "kind": "restart"})  # PAUSED RESTARTED

    def at(n):
        return mode.view(5 + n * screen.TURN_SECONDS).frame

    seen = words_over_turns(at, (128, 64), monkeypatch)
    assert "PAUSED" in seen and "RESTARTED" in seen
    # one turn shows one part: the two words are never squeezed onto the line together
    assert all("PAUSED RESTARTED" not in t for t, _, _ in drawn(at(0), (128, 64), monkeypatch))
    # the next part comes a turn after the restart: the service is asked to draw again then
    assert mode.view(5.0).redraw_at == pytest.approx(5.0 + screen.TURN_SECONDS)
    # on the 256-pixel SSD1322 it fits whole
    assert any("PAUSED RESTARTED" in t for t, _, _ in drawn(at(0), (256, 64), monkeypatch))


def test_the_ready_screen_says_who_presses_to_start_whom(monkeypatch):
    mode = iago(blue="Ada", red="Bob")  # colours drawn by lot: the lot gave blue the first move
    seen = words_over_turns(
        lambda n: mode.view(n * screen.TURN_SECONDS).frame, (128, 64), monkeypatch
    )
    assert all(w in seen.split() for w in ("RED", "PRESSES", "TO", "START", "BLUE"))
    assert "Ada" in seen and "Bob" in seen
    wide = words_over_turns(
        lambda n: mode.view(n * screen.TURN_SECONDS).frame, (256, 64), monkeypatch
    )
    assert "RED PRESSES TO START BLUE" in wide
    chosen = iago(drawn_by_lot=False)  # colours chosen: the players' lot decides who starts
    seen = words_over_turns(
        lambda n: chosen.view(n * screen.TURN_SECONDS).frame, (256, 64), monkeypatch
    )
    assert "RED PRESSES TO START BLUE" not in seen and "PRESSES TO START" in seen


@pytest.mark.parametrize("valid", [False, True])
def test_the_verdict_and_the_penalty_each_stay_up_long_enough_to_read(monkeypatch, valid):
    assert PAGE_SECONDS >= 3.0  # the minimum: three seconds a message
    mode = iago()
    challenge_of(mode, valid)  # the verdict is shown at t = 22

    def page(t):
        seen = " ".join(x for x, _, _ in drawn(mode.view(t).frame, (128, 64), monkeypatch))
        assert ("ACCEPTABLE" in seen) != ("turns over" in seen), seen
        return "verdict" if "ACCEPTABLE" in seen else "penalty"

    steps = [22 + k * 0.25 for k in range(int(4 * PAGE_SECONDS * 4))]  # four pages, 0.25 s apart
    shown = [page(t) for t in steps]
    runs = []
    for what in shown:
        if runs and runs[-1][0] == what:
            runs[-1][1] += 1
        else:
            runs.append([what, 1])
    assert [r[0] for r in runs] == ["verdict", "penalty", "verdict", "penalty"]
    assert all(r[1] * 0.25 >= PAGE_SECONDS for r in runs)
    assert (
        "NOT" in " ".join(x for x, _, _ in drawn(mode.view(22).frame, (128, 64), monkeypatch))
        or valid
    )
    # and the service is asked to draw the next page on time
    assert mode.view(22.1).redraw_at == pytest.approx(22 + PAGE_SECONDS)


# --- banners of the table service ---------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "banner",
    [
        overlays.Banner("TIMER HEAD DISCONNECTED", "the clock runs on the Pi"),
        overlays.Banner("NOT SAVING: storage", "the game goes on; call the arbiter"),
        overlays.Banner("JUDGING..."),
        overlays.warning_banner("blue", ["disconnected", "no-lead"]),
        overlays.count_banner({"blue": 12, "red": 9}),
    ],
)
def test_banners_of_fault_length_are_legible(monkeypatch, size, banner):
    words = set()
    for turn in range(4):
        texts = drawn(
            lambda d, w, h, n=turn: overlays.draw_banner(d, w, h, banner, n), size, monkeypatch
        )
        assert_legible(texts, size)
        words.update(" ".join(t for t, _, _ in texts).split())
    assert words >= set(str(banner).split())  # every word is shown in some turn


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "text", [overlays.STRIP_TEXT, "TIMER HEAD DISCONNECTED", "NOT SAVING: storage"]
)
def test_the_bottom_strip_is_legible(monkeypatch, size, text):
    for turn in range(2):
        texts = drawn(
            lambda d, w, h, n=turn: overlays.draw_strip(d, w, h, text, turn=n), size, monkeypatch
        )
        assert_legible(texts, size)


# --- Iota and Wordinoes -------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("names", [["Ana", "Ben"], ["Alexandra", "Ben", "Cy", "Dominique"]])
def test_iota_screens_are_legible(monkeypatch, size, names):
    mode = IotaMode(ModeContext(TableConfig(game="iota")))
    assert_legible(drawn(mode.view(0).frame, size, monkeypatch), size)
    mode.apply({"t": 0, "kind": "players", "names": names})
    assert_legible(drawn(mode.view(0).frame, size, monkeypatch), size)
    mode.apply({"t": 1, "kind": "start", "card": "RT2"})
    mode.apply({"t": 2, "kind": "entry", "play": "GC2@0,1"})
    for k in range(4):
        assert_legible(drawn(mode.view(2 + 3 * k).frame, size, monkeypatch), size)


@pytest.mark.parametrize("size", SIZES)
def test_wordinoes_screens_are_legible(monkeypatch, size):
    frames = [
        _message_frame("WORDINOES", "Type the players", "in seating order"),
        _play_frame("Alexandra to play", "POLICE .. MAN", "Alexa:9 Ben:9 bag:20", "Ben knocks"),
    ]
    evidence = "POLICEMAN is a word of the table's list (scowl-70-both), and WordNet has it"
    frames += [_vote_frame("POLICE + MAN", "COMPOUND", evidence, "Alexandra", p) for p in range(4)]
    for frame in frames:
        for turn in range(3):
            texts = drawn(lambda d, w, h, f=frame, n=turn: f(d, w, h, turn=n), size, monkeypatch)
            assert_legible(texts, size)


# --- names in other scripts ----------------------------------------------------------------------


def test_a_chinese_name_is_drawn_not_boxes(monkeypatch):
    name = "李雷"
    mode = iago(blue=name, red="Bob")
    texts = drawn(mode.view(0).frame, (128, 64), monkeypatch)
    label = next((t, f) for t, f, _ in texts if name in t)
    fnt = label[1]

    # the font it is drawn in has the glyphs: none is the font's "missing glyph" box, as it is in
    # DejaVu (the test would see the boxes)
    def glyph(f, ch):
        return screen.render(lambda d, w, h: d.text((2, 2), ch, font=f, fill=255), 24, 24).tobytes()

    nowhere = "\U000f0000"  # a private-use character no font draws: the missing-glyph box
    dejavu = screen.font(fnt.size)
    assert all(glyph(dejavu, ch) == glyph(dejavu, nowhere) for ch in name)
    for ch in name:
        assert glyph(fnt, ch) != glyph(fnt, nowhere)
    assert screen.undrawable(name) == ""
    assert screen.cap_height(fnt) >= screen.MIN_TEXT_PX


def test_table_setup_warns_about_a_name_no_font_draws(capsys, monkeypatch, tmp_path):
    from companion.cli import main

    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    assert main(["table", "setup", "--players", "李雷", "Bob"]) == 0
    assert "cannot draw" not in capsys.readouterr().err
    odd = "\u0f00"  # TIBETAN SYLLABLE OM: in none of the OLED's fonts
    assert screen.undrawable(f"Ana{odd}") == odd
    assert main(["table", "setup", "--players", f"Ana{odd}", "Bob"]) == 0
    err = capsys.readouterr().err
    assert "cannot draw" in err and odd in err
