"""Make the README's pictures of the OLED: run docs/oled/tour.sim on the simulator with
``companion sim --frames`` and keep the frame shown at each moment named below.

    .venv/bin/python docs/oled/make.py [--size 128x64|256x64]

The frames are the simulator's own (the same code draws the Pi's OLED), enlarged 3 times with
the pixels kept square. Runs in an empty data and configuration directory of its own.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# picture name -> the script times (seconds) whose frames it shows: one time, a PNG; several, an
# animated GIF of those frames too, 3 s each, as the OLED shows a text too long for one line in
# turns (companion.daemon.screen.TURN_SECONDS)
MOMENTS = {
    "ready": (1.0, 4.0),
    "running": (52.0,),
    "challenge": (62.5,),
    "ruling": (65.0, 68.0, 71.0, 74.0),
    "paused": (85.0,),
    "restarted": (110.5, 113.5),
    "lost-on-time": (1999.0, 2002.0),
}
TABLE = """[table]
number = 7
blue = "Ada"
red = "Bob"
drawn_by_lot = true
minutes = 5
minute_seconds = 60.0
"""
SSD1322 = """
[display]
driver = "ssd1322"
interface = "spi"
spi_device = 0
dc = 5
reset = 6
width = 256
height = 64
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=("128x64", "256x64"), default="128x64")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "config").mkdir()
        (tmp / "config" / "table.toml").write_text(TABLE)
        env = {**os.environ, "COMPANION_DATA_DIR": str(tmp / "data")}
        env["COMPANION_CONFIG_DIR"] = str(tmp / "config")
        command = [sys.executable, "-m", "companion", "sim", "--script", str(HERE / "tour.sim")]
        command += ["--frames", str(tmp / "frames")]
        command += ["--frames-scale", "3"]
        suffix = ""
        if args.size == "256x64":
            pinmap = (ROOT / "hardware" / "pinmap.toml").read_text()
            start = pinmap.index("[display]")
            end = pinmap.index("\n[", start) + 1  # the next section
            (tmp / "pinmap.toml").write_text(
                pinmap[:start] + SSD1322.strip() + "\n\n" + pinmap[end:]
            )
            command += ["--pinmap", str(tmp / "pinmap.toml")]
            suffix = "-256"
        subprocess.run(command, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        frames = sorted((tmp / "frames").glob("*.png"))
        shown = [(float(p.name.split("-", 1)[1].removesuffix("s.png")), p) for p in frames]
        for name, times in MOMENTS.items():
            # the frame on the screen at t: the last one shown at or before it
            picked = [[p for when, p in shown if when <= t][-1] for t in times]
            shutil.copy(picked[0], HERE / f"{name}{suffix}.png")
            print(f"docs/oled/{name}{suffix}.png  (frame {picked[0].name})")
            if len(picked) > 1:
                images = [Image.open(p).convert("L") for p in picked]
                gif = HERE / f"{name}{suffix}.gif"
                images[0].save(gif, save_all=True, append_images=images[1:], duration=3000, loop=0)
                print(f"docs/oled/{gif.name}  ({', '.join(p.name for p in picked)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
