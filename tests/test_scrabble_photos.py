"""Each move's photo at a crossword game's table (issue 48 item 5): kept beside the records for
the arbiter, named by game and move, pruned by age and whenever the card runs low; a photo that
cannot be kept is said on the OLED and the game goes on. The faults are staged on the real table
service (mock pins, luma's dummy OLED, a fake clock, a camera of image files) with a card that
fails on demand, as tests/test_faults.py stages the journal's; each checks the screen and the
clock."""

import dataclasses
import errno
import io
import json
import os

import cv2
import numpy as np
import pytest

from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.photos import MovePhotos, PhotoError, PhotoIO, photo_name
from companion.daemon.service import PHOTO
from companion.daemon.sim import ScriptedTable, parse_sim_script
from companion.devices.pinmap import PinMapError, load_pinmap
from tests.test_faults import oled, shows_strip

TABLE = TableConfig(number=4, blue="Ada", red="Bob", game="scrabble", minutes=25)
MB = 1024 * 1024


def frames(folder, count=4):
    """``count`` camera frames (one a capture, in name order): plain pictures, no board in
    them, so the reader says it is unsure at once; the photo is kept all the same."""
    folder.mkdir()
    for i in range(count):
        image = np.full((60, 80, 3), 40 * i, np.uint8)
        cv2.imwrite(str(folder / f"{i:02d}.png"), image)
    return folder


class Card(PhotoIO):
    """The photo store's file operations on a card that fails on demand: ``errno`` set, every
    write raises it; ``free`` set, that many bytes are free (else the real card's figure)."""

    def __init__(self) -> None:
        self.errno: int | None = None
        self.free: int | None = None
        self.writes = 0

    def write(self, path, data):
        self.writes += 1
        if self.errno is not None:
            raise OSError(self.errno, os.strerror(self.errno), str(path))
        super().write(path, data)

    def remove(self, path):
        size = path.stat().st_size
        super().remove(path)
        if self.free is not None:
            self.free += size  # what a photo took is free again

    def free_bytes(self, folder):
        return super().free_bytes(folder) if self.free is None else self.free


def table(tmp_path, card=None, **camera):
    pinmap = load_pinmap(backend="mock")
    cam = {"kind": "files", "folder": str(frames(tmp_path / "cam")), **camera}
    pinmap = dataclasses.replace(pinmap, camera=cam)
    return ScriptedTable(
        TABLE,
        set_judge({"JETON"}),
        tmp_path / "journal.jsonl",
        pinmap=pinmap,
        records_path=tmp_path / "records",
        photo_io=card,
    )


def run(s, script):
    return s.run(parse_sim_script(script.strip().splitlines()), out=io.StringIO())


def game_id(s):
    return s.service.journal.records[0]["game_id"]


def test_each_moves_photo_is_kept_beside_the_record_named_by_game_and_move(tmp_path):
    s = table(tmp_path)
    gid = game_id(s)
    run(s, "0 press red\n20 press blue\n45 press red\n46 state\n")
    records = tmp_path / "records"
    kept = sorted(p.relative_to(records).as_posix() for p in records.rglob("*.jpg"))
    assert kept == [f"photos/{gid}/move-001.jpg", f"photos/{gid}/move-002.jpg"]
    assert kept == [photo_name(gid, 1), photo_name(gid, 2)]
    photo = cv2.imread(str(records / kept[1]))
    assert photo.shape == (60, 80, 3)  # the frame of the second turn's capture, as JPEG
    assert abs(int(photo.mean()) - 40) <= 2  # the second image: one capture a turn
    marks = [r for r in s.service.journal.records if r["kind"] == PHOTO]
    assert [(r["turn"], r["player"], r["photo"]) for r in marks] == [
        (1, "blue", kept[0]),
        (2, "red", kept[1]),
    ]
    run(s, "50 type scores 10 20\n51 state\n")  # the game ends: its record names its photos
    saved = json.loads(s.service.last_record_path.read_text())
    assert saved["photos"] == kept
    assert saved["record"][0]["game_id"] == gid


def test_photos_are_pruned_by_age_and_when_the_card_runs_low(tmp_path):
    card = Card()
    now = 1_800_000_000.0
    store = MovePhotos(tmp_path, keep_days=30, min_free_mb=100, io=card, now=lambda: now)
    frame = np.zeros((30, 40, 3), np.uint8)
    for gid, turns, age_days in (("old", 2, 31), ("week", 2, 7), ("now", 1, 0)):
        for turn in range(1, turns + 1):
            path = tmp_path / store.keep(gid, turn, frame)
            stamp = now - age_days * 86400 + turn
            os.utime(path, (stamp, stamp))
    assert not (tmp_path / "photos" / "old").exists()  # 31 days old: gone at the next keep
    names = lambda: sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.jpg"))  # noqa: E731
    assert names() == [photo_name("now", 1), photo_name("week", 1), photo_name("week", 2)]
    # the card runs low: the oldest photos go, the game in progress's last; just enough go
    size = (tmp_path / photo_name("week", 1)).stat().st_size  # every photo here: the same frame
    card.free = 100 * MB + size - size - 1  # the new photo needs room of two old ones, less 1
    store.keep("now", 2, frame)
    assert names() == [photo_name("now", 1), photo_name("now", 2)]
    # nothing older left to remove and still too little room: not kept, and said so
    card.free = 50 * MB
    with pytest.raises(PhotoError) as caught:
        store.keep("now", 3, frame)
    assert caught.value.words == "PHOTO NOT KEPT: CARD FULL"
    assert "100 MB are kept free" in str(caught.value)
    assert photo_name("now", 3) not in names()


def test_a_photo_name_refuses_what_is_not_a_game_or_a_turn():
    with pytest.raises(ValueError, match="game id"):
        photo_name("../etc", 1)
    with pytest.raises(ValueError, match="turn 0"):
        photo_name("abc", 0)


def test_the_pin_map_sets_how_long_photos_are_kept_and_refuses_bad_values(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text('[camera]\nkind = "none"\nphoto_days = 7\nphoto_min_free_mb = 0\n')
    camera = load_pinmap(good, backend="mock").camera
    assert (camera["photo_days"], camera["photo_min_free_mb"]) == (7, 0)
    bad = tmp_path / "bad.toml"
    bad.write_text('[camera]\nkind = "none"\nphoto_days = 0\nphoto_min_free_mb = -1\n')
    with pytest.raises(PinMapError) as caught:
        load_pinmap(bad, backend="mock")
    assert "photo_days = 0: accepted days, a number above 0" in str(caught.value)
    assert "photo_min_free_mb = -1: accepted megabytes, a number 0 or more" in str(caught.value)


@pytest.mark.parametrize(
    ("code", "free", "words"),
    [
        (errno.ENOSPC, None, "PHOTO NOT KEPT: CARD FULL"),
        (errno.EROFS, None, "PHOTO NOT KEPT: CARD READ-ONLY"),
        (errno.EACCES, None, "PHOTO NOT KEPT: NO PERMISSION"),
        (None, 10 * MB, "PHOTO NOT KEPT: CARD FULL"),  # the card nearly full: never filled
    ],
    ids=["full", "read-only", "no-permission", "low-space"],
)
def test_a_photo_not_kept_is_said_and_the_game_goes_on(tmp_path, code, free, words):
    card = Card()
    s = table(tmp_path, card)
    svc = s.service
    run(s, "0 press red\n20 press blue\n")  # blue's 20 s; red on move from 20 s
    assert "photos" not in svc.faults and card.writes == 1
    card.errno, card.free = code, free
    st = run(s, "45 press red\n46 state\n")  # red's 25 s: blue on move from 45 s
    assert shows_strip(oled(s), words)  # said on the OLED's bottom line...
    assert svc.published.faults == (words,)
    assert "the photo of move 2 was not kept" in svc.published.message
    assert words in svc.health()
    # ...and the clock is the clock: each player charged his own time, blue on move
    assert st["status"] == "running" and st["mover"] == "blue"
    assert st["time_left"] == {"blue": 25 * 60 - 20 - 1, "red": 25 * 60 - 25}
    assert st["moves_completed"] == 2
    records = tmp_path / "records"
    first = [] if free is not None else ["move-001.jpg"]  # low: even this game's photos go
    assert [p.name for p in records.rglob("*.jpg")] == first
    # the game goes on: the next press counts, and the words stay up while photos fail
    st = run(s, "60 press blue\n61 state\n")
    assert (st["mover"], st["moves_completed"]) == ("red", 3)
    assert st["time_left"]["blue"] == 25 * 60 - 20 - 15
    assert shows_strip(oled(s), words)
    # the card works again: the next photo is kept and the words go
    card.errno, card.free = None, None
    st = run(s, "70 press red\n71 state\n")
    assert (st["mover"], st["moves_completed"]) == ("blue", 4)
    assert not shows_strip(oled(s), words) and svc.published.faults == ()
    assert sorted(p.name for p in records.rglob("*.jpg")) == [*first, "move-004.jpg"]
