"""``companion director --http HOST:PORT`` serves the pages: the real command in a process of
its own (its own Mosquitto on a free port, its store in a fresh data directory), asked over
HTTP, stopped by SIGTERM."""

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import httpx
import pytest
from PIL import Image

from companion.tournament import broker as brk
from tests.test_tournament_network import decoded_qr

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not os.path.exists("/usr/sbin/mosquitto"),
    reason="Mosquitto is not installed (make deps installs it)",
)


def test_the_director_serves_its_pages_with_the_password_and_viewer_pin(tmp_path):
    http_port, broker_port = brk.free_port(), brk.free_port()
    env = os.environ | {
        "COMPANION_DATA_DIR": str(tmp_path / "data"),
        "COMPANION_CONFIG_DIR": str(tmp_path / "config"),
        "COMPANION_VIEWER_PIN": "2468",
    }
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "director",
        "--event",
        "spring",
        "--broker-port",
        str(broker_port),
        "--listen",
        "127.0.0.1",
        "--http",
        f"127.0.0.1:{http_port}",
        "--password",
        "hall-7",
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{http_port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url + "/login", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "the director's pages did not answer"
                time.sleep(0.1)
        with httpx.Client(base_url=url, timeout=10) as c:
            r = c.get("/")
            assert r.status_code == 303 and r.headers["location"] == "/login?next=/"
            token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
            r = c.post(
                "/login",
                data={"csrf": token, "secret": "hall-7", "role": "director", "next": "/round"},
            )
            assert r.status_code == 303 and r.headers["location"] == "/round"
            page = c.get("/round").text
            assert 'id="pair"' in page and "No round published yet" in page
            # the address the tables' QR codes carry: the pages as the command serves them
            running = json.loads((tmp_path / "data" / "director" / "running.json").read_text())
            assert running["pages"] == url
            png = c.get("/table/3/qr.png")
            assert png.status_code == 200
            assert decoded_qr(Image.open(io.BytesIO(png.content))) == url + "/table/3"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0
