"""``companion vision``'s messages: what a newcomer gives wrong is named with what is accepted,
and the calibration to the user's set is said wherever it is read with.

Each test sets its own data directory (a calibration made here is no other test's)."""

import json
import re

import numpy as np
import pytest

from companion.cli import main
from companion.vision.cli import board_argument, parse_corners
from companion.vision.errors import VisionError
from companion.vision.reader import check_corners
from companion.vision.synth import render_photo

EMPTY_15 = "/".join(["15"] * 15)


@pytest.fixture
def own_data(tmp_path, monkeypatch):
    """An empty data directory of the test's own (no calibration in it)."""
    data = tmp_path / "data"
    monkeypatch.setenv("COMPANION_DATA_DIR", str(data))
    return data


@pytest.fixture(scope="module")
def layout_photo(tmp_path_factory):
    """A synthetic photo of the Iago calibration layout, saved, and its corners option."""
    from companion.vision.calibrate import default_layout

    photo = render_photo("iago", seed=31, size=(1000, 750), grid=default_layout("iago"), hand=False)
    path = photo.save(tmp_path_factory.mktemp("layout") / "layout")
    corners = "--corners=" + ",".join(f"{v:.2f}" for v in np.asarray(photo.corners).ravel())
    return str(path), corners


# -- 1. a file's name that names no file is not read as a board --------------------------------


@pytest.mark.parametrize("text", ["/tmp/nonexist.txt", "before.txt", "./x/before", "C:\\b.txt"])
def test_a_missing_board_file_is_said_missing_not_counted_as_rows(tmp_path, text):
    with pytest.raises(VisionError) as err:
        board_argument("--known", text, 15, False)
    said = str(err.value)
    assert "no such file" in said and "nor a board" not in said and "rows" not in said.split(";")[0]
    assert repr(text) in said


def test_truth_naming_no_file_is_said_missing_before_any_photo_is_read(tmp_path, capsys):
    missing = tmp_path / "nodir" / "nonexist.txt"
    args = ["vision", "calibrate", "board_001.jpg", "--profile", "scrabble"]
    assert main([*args, "--truth", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"--truth '{missing}': no such file (there is no folder" in err
    assert "nor a board" not in err and " rows)" not in err and "Traceback" not in err


def test_board_notation_mistyped_is_still_said_a_board():
    with pytest.raises(VisionError, match=r"nor a board \(2 rows\)"):
        board_argument("--known", "JETON/15", 15, False)
    # as many rows as the board: board notation, whatever its cells look like
    with pytest.raises(VisionError, match=r"nor a board \(row 15 "):
        board_argument("--known", "/".join(["15"] * 14 + ["x.txt"]), 15, False)


# -- 2. '.' and numbers in one row; a byte-order mark --------------------------------------------


def test_a_row_mixing_dots_and_numbers_is_refused_saying_why():
    for row, written in ((".......1......F", "the number starting '1'"), ("7.......F", "'.'")):
        text = "/".join([row] + ["15"] * 14)
        with pytest.raises(VisionError) as err:
            board_argument("--truth", text, 15)
        said = str(err.value)
        assert f"row 1, column 8 (character {row.index(written[-2]) + 1} of {row!r})" in said
        assert f"{written} in a row that writes empty cells as" in said
        assert "never both" in said and "not a cell" not in said
        # the accepted text says it too, not that a number is one more way to write a cell
        assert "a number is that many empty cells, in a row that writes no '.'" in said


def test_a_cell_that_is_no_cell_is_shown():
    rows = ["15"] * 14
    with pytest.raises(VisionError, match=r"row 15, column 4: '#' is not a letter A-Z/a-z"):
        board_argument("--truth", "/".join(rows + ["...#..........."]), 15)
    with pytest.raises(VisionError, match=r"row 15, column 1: '\?' is not a letter A-Z/a-z"):
        board_argument("--known", "/".join(rows + ["?14"]), 15, False)


def test_a_board_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    """(Windows Notepad saves UTF-8 with a byte-order mark at its start.)"""
    rows = ["." * 15] * 7 + ["....JETON......"] + ["." * 15] * 7
    notation = "/".join(["15"] * 7 + ["4JETON6"] + ["15"] * 7)
    for name, text in (("lines.txt", "\r\n".join(rows) + "\r\n"), ("slashes.txt", notation)):
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + text.encode())
        assert board_argument("--known", str(path), 15, False) == rows
    assert board_argument("--known", "\ufeff" + "/".join(rows), 15, False) == rows


# -- 3. corners off the photo: the limit is said --------------------------------------------------


def test_corners_far_off_the_photo_are_refused_with_the_limit_in_pixels():
    shape = (2628, 2495, 3)  # a real photo's: a quarter of its longer side is 657 px
    far = [[5000, 5000], [8000, 5000], [8000, 8000], [5000, 8000]]
    with pytest.raises(VisionError) as err:
        check_corners(far, shape)
    said = str(err.value)
    assert "corner 1 [5000.0, 5000.0] lies more than 657 px beyond the edge" in said
    assert "corners up to 657 px outside it" in said and "are accepted" in said
    near = [[-500, -500], [2000, -500], [2000, 2000], [-500, 2000]]
    assert check_corners(near, shape).shape == (4, 2)


# -- 4. --corners naming a folder ------------------------------------------------------------------


def test_corners_naming_a_folder_say_it_is_a_folder(tmp_path):
    (tmp_path / "b.json").mkdir()
    for folder in (tmp_path, tmp_path / "b.json"):
        with pytest.raises(VisionError, match="a folder, not a corners file"):
            parse_corners(str(folder))
    with pytest.raises(VisionError, match=r"or a NAME\.corners\.json file"):
        parse_corners("1,2,3")


# -- 5. how many photos -----------------------------------------------------------------------------


def test_calibrate_says_one_or_more_photos_in_its_help_and_its_error(capsys):
    with pytest.raises(SystemExit):
        main(["vision", "calibrate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "one or two photos" not in text and "one photo or more; one or two are enough" in text
    assert main(["vision", "calibrate"]) == 2
    err = capsys.readouterr().err
    assert "give one or more photos of the layout (one or two are enough)" in err


def test_the_docs_say_one_or_more_photos():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[1] / "docs" / "vision.md").read_text()
    assert len(docs.splitlines()) <= 400
    docs = " ".join(docs.split())
    assert "one or two photos" not in docs
    assert "one photo or more (one or two are enough)" in docs
    assert "calibrate photo1.jpg [photo2.jpg ...]" in docs


# -- 6. option combinations ---------------------------------------------------------------------------


def test_reset_with_other_options_is_refused_naming_them(own_data, capsys):
    from companion.vision.cellnet import calibration_path

    path = calibration_path("iago")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"kept")
    args = ["vision", "calibrate", "--reset", "--print-layout", "x.png", "--add", "--truth", "foo"]
    assert main([*args, "--corners", "1,2,3,4,5,6,7,8"]) == 2
    err = capsys.readouterr().err
    assert "--reset takes no --print-layout, --add, --truth, --corners" in err
    for option in ("--add", "--truth=foo", "--print-layout=-"):
        assert main(["vision", "calibrate", "--reset", option]) == 2
        assert f"--reset takes no {option.split('=')[0]}:" in capsys.readouterr().err
    assert main(["vision", "calibrate", "--reset", "layout.png"]) == 2
    assert "takes no photos (layout.png)" in capsys.readouterr().err
    assert path.read_bytes() == b"kept"


def test_print_layout_checks_its_file_before_printing_anything(tmp_path, capsys):
    for bad, said in (
        (tmp_path / "none" / "x.png", "does not exist"),
        (tmp_path / "x.txt", "accepted extensions: .png"),
    ):
        assert main(["vision", "calibrate", "--print-layout", str(bad)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and said in err
    assert main(["vision", "calibrate", "--print-layout", str(tmp_path / "x.png")]) == 0
    assert (tmp_path / "x.png").is_file() and "ABCDEFGHIJK" in capsys.readouterr().out


def test_print_layout_with_photos_is_refused(own_data, tmp_path, capsys):
    png = tmp_path / "x.png"
    assert main(["vision", "calibrate", "--print-layout", str(png), "photo.jpg"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--print-layout takes no photos (photo.jpg)" in err
    assert not png.exists() and not (own_data / "vision").exists()


def test_add_with_no_earlier_calibration_says_so(own_data, layout_photo, capsys):
    path, corners = layout_photo
    assert main(["vision", "calibrate", path, corners, "--add"]) == 0
    err = capsys.readouterr().err
    assert "calibrate --add: no earlier iago calibration to add to" in err
    assert "calibrating from the shipped model" in err
    assert main(["vision", "calibrate", path, corners, "--add"]) == 0
    assert "no earlier" not in capsys.readouterr().err


# -- 5 (more photos) and 8: the calibration in use is said ---------------------------------------


def test_three_photos_calibrate_and_the_calibration_is_said_where_it_is_used(
    own_data, layout_photo, capsys
):
    from companion.vision.cellnet import calibration_path

    path, corners = layout_photo
    assert main(["vision", "read", path, corners, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["calibration"] is None and "calibration" not in err
    assert main(["vision", "calibrate", path, path, path, corners]) == 0
    assert json.loads(capsys.readouterr().out)["samples"] == 3 * 11 * 11
    made = calibration_path("iago")
    assert main(["vision", "read", path, corners]) == 0
    err = capsys.readouterr().err
    line = [x for x in err.splitlines() if "calibration" in x]
    assert len(line) == 1
    assert re.search(
        rf"read with the calibration to your set \({re.escape(str(made))}, made "
        r"\d{4}-\d\d-\d\d \d\d:\d\d; 'companion vision calibrate --reset' forgets it\)",
        line[0],
    )
    assert main(["vision", "read", path, corners, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["calibration"] == str(made) and "read with the calibration" in err
    assert main(["vision", "train"]) == 0
    out, err = capsys.readouterr()
    model = json.loads(out)
    assert model["calibration"] == {"iago": str(made), "scrabble": None}
    assert "iago boards are read with the calibration to your set" in err


# -- 7. a refused photo is named by its path --------------------------------------------------------


def test_a_photo_that_is_not_the_layout_is_named_by_its_path(
    own_data, layout_photo, tmp_path, capsys
):
    from companion.vision.calibrate import LayoutMismatchError, calibrate

    path, corners = layout_photo
    game = render_photo("iago", seed=7, size=(1000, 750), hand=False)
    game_path = str(game.save(tmp_path / "game"))
    game_corners = "--corners=" + ",".join(f"{v:.2f}" for v in np.asarray(game.corners).ravel())
    assert main(["vision", "calibrate", game_path, game_corners]) == 2
    err = capsys.readouterr().err
    assert f"calibration photo {game_path} does not look like the layout" in err
    # the library, given arrays and no names, numbers them
    with pytest.raises(LayoutMismatchError, match="calibration photo 1 does not look like"):
        calibrate([game.image], "iago", corners=game.corners)
    # a corner off the photo is said with the photo's name
    assert main(["vision", "calibrate", path, "--corners=0,0,9000,0,9000,9000,0,9000"]) == 2
    assert f"calibration photo {path}: corners: corner 2" in capsys.readouterr().err


# -- 9. vision train prints one JSON object ----------------------------------------------------------


def test_train_prints_the_model_as_one_json_object(own_data, capsys):
    from companion.vision import cellnet

    assert main(["vision", "train"]) == 0
    out, err = capsys.readouterr()
    model = json.loads(out)  # `| jq` reads it: no path on a line of its own before it
    assert model["file"] == str(cellnet.SHIPPED_MODEL) and model["model"] == "cellnet.onnx"
    assert "training" in model and model["calibration"] == {"iago": None, "scrabble": None}
    assert err == ""


# -- 10. "a board of 11 x 11 cells" ------------------------------------------------------------------


def test_a_larger_board_read_with_a_smaller_profile_is_refused_in_good_english(tmp_path, capsys):
    photo = render_photo("scrabble", seed=1, size=(1024, 768))
    image = photo.save(tmp_path / "scrabble")
    assert main(["vision", "read", str(image)]) == 2
    err = capsys.readouterr().err
    assert "accepted here: a board of 11 x 11 cells" in err and "a 11" not in err


def test_a_smaller_board_read_with_a_larger_profile_is_refused_in_good_english(tmp_path, capsys):
    """An Iago photo read with --profile scrabble: its grid is 11 x 11, found or given, and the
    message says so (a Scrabble photo, whose 11 x 11 parts are found too, is not: the
    scrabble profile's own grid shows no fault there)."""
    photo = render_photo("iago", seed=2, size=(1024, 768))
    image = photo.save(tmp_path / "iago")
    corners = ",".join(f"{v:.1f}" for v in photo.corners.reshape(-1))
    for extra in ([], [f"--corners={corners}"]):
        assert main(["vision", "read", str(image), "--profile", "scrabble", *extra]) == 2
        err = capsys.readouterr().err
        assert "has 11 x 11 cells, not the 15 x 15 of the scrabble profile" in err
        assert err.rstrip().endswith("Read it with --profile iago")
    scrabble = render_photo("scrabble", seed=3, size=(1024, 768)).save(tmp_path / "scrabble")
    main(["vision", "read", str(scrabble), "--profile", "scrabble"])
    assert "11 x 11" not in capsys.readouterr().err


def test_a_mistyped_board_ending_like_a_file_name_is_said_a_board():
    """``...A.CAT`` ends as ``x.txt`` does, but rows joined by '/' are a board mistyped."""
    rows = ["15"] * 12 + ["...........A.CAT"]
    with pytest.raises(VisionError, match=r"nor a board \(13 rows\)"):
        board_argument("--known", "/".join(rows), 15, False)


def test_a_corners_file_with_a_byte_order_mark_and_an_empty_photo_name(tmp_path, capsys):
    from companion.cli import main
    from companion.vision.cli import parse_corners

    path = tmp_path / "b.corners.json"
    path.write_bytes(b"\xef\xbb\xbf[[1, 2], [30, 2], [30, 40], [1, 40]]")
    assert parse_corners(str(path)) == [1, 2, 30, 2, 30, 40, 1, 40]
    assert main(["vision", "read", ""]) == 2
    assert "no file named (an empty name)" in capsys.readouterr().err
