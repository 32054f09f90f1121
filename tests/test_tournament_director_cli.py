"""``companion director`` as a process, the way a hall runs it: its own Mosquitto, accounts added
while it runs, a result acked and kept once, its broker started again after a crash, and nothing
left running after SIGTERM."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from companion.tournament import protocol
from companion.tournament.broker import free_port
from companion.tournament.mqtt import BrokerURL, BrokerURLError, check_login, connect

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not os.path.exists("/usr/sbin/mosquitto"),
    reason="Mosquitto is not installed (make deps installs it)",
)


def wait_until(check, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # a zombie is not alive
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_director_process(tmp_path):
    env = {**os.environ, "COMPANION_DATA_DIR": str(tmp_path), "COMPANION_CONFIG_DIR": str(tmp_path)}
    port = free_port()
    cli = [sys.executable, "-m", "companion"]
    log = open(tmp_path / "director.log", "wb")  # noqa: SIM115 - the child's
    director = subprocess.Popen(
        [*cli, "director", "--event", "cup", "--broker-port", str(port), "--listen", "127.0.0.1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    url = BrokerURL("127.0.0.1", port)
    pid_file = tmp_path / "director" / "broker" / "mosquitto.pid"
    try:
        wait_until(lambda: (tmp_path / "director" / "running.json").exists(), 15, "the director")
        out = subprocess.run(
            [*cli, "director", "tables", "add", "3", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        creds = json.loads(out.stdout)["tables"]["3"]
        assert creds["username"] == "table3"
        table = connect(url, creds["username"], creds["password"], "table-3", timeout=5.0)
        acks = []
        table.on_message = lambda c, u, msg: acks.append(json.loads(msg.payload))
        prefix = protocol.prefix("cup")
        table.subscribe(protocol.topic(prefix, 3, "ack"), qos=1)
        record = {"players": {"blue": "Ada", "red": "Bob"}, "loser": "red", "events": []}
        result = protocol.encode({"game": "G1", "table": 3, "round": 1, "record": record})
        for _ in range(2):  # sent again: the ack was not seen
            table.publish(protocol.topic(prefix, 3, "result"), result, qos=1).wait_for_publish(5)
        wait_until(lambda: acks.count({"game": "G1"}) == 2, what="two acks of G1")
        table.disconnect()
        table.loop_stop()
        out = subprocess.run(
            [*cli, "director", "results", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        results = json.loads(out.stdout)
        assert [(r["table"], r["game"], r["round"], r["record"]) for r in results] == [
            (3, "G1", 1, record)
        ]
        # the broker crashes: the director starts it again, with the accounts
        broker_pid = int(pid_file.read_text())
        os.kill(broker_pid, signal.SIGKILL)
        wait_until(lambda: not alive(broker_pid), what="the broker to die")
        check_login(url, creds["username"], creds["password"], timeout=10.0)
        new_pid = int(pid_file.read_text())
        assert new_pid != broker_pid
    finally:
        director.send_signal(signal.SIGTERM)
        code = director.wait(20)
        log.close()
    assert code == 0, (tmp_path / "director.log").read_text()
    assert not alive(new_pid)  # the director stopped its broker
    assert not (tmp_path / "director" / "running.json").exists()
    with pytest.raises(BrokerURLError):
        connect(url, creds["username"], creds["password"], "late", timeout=1.0)
