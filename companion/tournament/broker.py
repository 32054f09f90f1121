"""The hall's broker: a Mosquitto (Debian ``mosquitto``) that the director starts with a
generated configuration, and the accounts that may log in to it.

Files, under the director's directory (``data_dir()/director/``, mode 0700)::

    accounts.json        the director's own account (username, password) and the tables' usernames
    broker/mosquitto.conf  generated on every start: listeners, no anonymous clients, persistence
    broker/passwd        Mosquitto's password file (salted PBKDF2-SHA512 hashes, mosquitto_passwd)
    broker/acl           who may read and write which topics (regenerated from accounts.json,
                         for every event of this directory: its ``events``)
    broker/mosquitto.db  the broker's persistence (sessions and queued QoS 1 messages)
    broker/mosquitto.pid, broker/mosquitto.log
    tls/                 the hall's CA and the broker's certificate (``companion director ca``)

Accounts: ``director`` (the director's session), ``director-commands`` (its short commands)
and ``bridge-NAME`` (a venue's bridge) read and write everything under ``companion/EVENT/``;
``tableN`` may
publish only ``tables/N/{state,events,result,board,online}`` and read only ``tables/N/setup``
and ``tables/N/ack``. The broker makes each client's id its username
(``use_username_as_clientid``), so no account can take another's session. A table's password
is printed once by ``companion director tables add``
and stored only hashed, in ``passwd``. Adding a table rewrites ``passwd`` and ``acl`` and sends
the running broker SIGHUP, which reloads both: the account works at once.

Started as root, Mosquitto drops to the ``mosquitto`` user unless told otherwise; the generated
configuration names the user the director runs as (``user root`` under root), so the broker
can read its files in the data directory.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import json
import logging
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError
from companion.tournament import protocol

DIRECTOR_USER = "director"
COMMANDS_USER = "director-commands"
log = logging.getLogger("companion.tournament")


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something on this machine already listens on TCP ``port`` at ``host`` (a bind
    there is refused: EADDRINUSE). Nothing is sent."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no listener
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


class BrokerError(CompanionError, RuntimeError):
    """The broker cannot be set up, started or reached: names the file, port or command."""


def mosquitto_path() -> str:
    """The ``mosquitto`` executable (PATH, then /usr/sbin).

    Raises:
        BrokerError: Mosquitto is not installed.
    """
    found = shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.path.exists(p)),
        None,
    )
    if found is None:
        raise BrokerError(
            "mosquitto is not installed: install the Debian package 'mosquitto' (make deps "
            "does), or name a running broker with --broker mqtt://HOST:PORT"
        )
    return found


def _passwd_tool() -> str:
    found = shutil.which("mosquitto_passwd")
    if found is None:
        raise BrokerError("mosquitto_passwd is not installed (Debian package 'mosquitto')")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (for tests and ``make tournament``)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def table_user(table: int) -> str:
    """The account name of table ``table``: ``tableN``."""
    return f"table{int(table)}"


@dataclass
class Accounts:
    """The accounts of one director directory (see the module docstring).

    Args:
        directory: the director's directory (``data_dir()/director``).
    """

    directory: Path

    def __post_init__(self) -> None:
        self.directory = Path(self.directory)

    @property
    def broker_dir(self) -> Path:
        return self.directory / "broker"

    @property
    def passwd(self) -> Path:
        return self.broker_dir / "passwd"

    @property
    def acl(self) -> Path:
        return self.broker_dir / "acl"

    @property
    def file(self) -> Path:
        return self.directory / "accounts.json"

    def _read(self) -> dict:
        if not self.file.exists():
            return {}
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BrokerError(f"{self.file}: cannot read the accounts: {exc}") from None
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict) -> None:
        tmp = self.file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        tmp.replace(self.file)

    def ensure(self) -> dict:
        """Create the directory, the director's account and the files if missing; returns
        ``{"username", "password"}`` of the director."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.broker_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = self._read()
        if "director" not in data:
            data["director"] = {"username": DIRECTOR_USER, "password": secrets.token_urlsafe(18)}
            data.setdefault("tables", [])
            self._write(data)
            self._set_password(DIRECTOR_USER, data["director"]["password"])
        elif not self.passwd.exists():
            self._set_password(DIRECTOR_USER, data["director"]["password"])
            for user, password in sorted(data.get("services", {}).items()):
                self._set_password(user, password)
        if COMMANDS_USER not in data.get("services", {}):
            data.setdefault("services", {})[COMMANDS_USER] = secrets.token_urlsafe(18)
            self._write(data)
            self._set_password(COMMANDS_USER, data["services"][COMMANDS_USER])
        return dict(data["director"])

    def service(self, username: str, event: str | None = None) -> dict:
        """The account ``username`` of the director's side besides its own session: each gets
        the director's ACL and a client id of its own (the broker makes every client's id its
        username): :data:`COMMANDS_USER` for the short commands (``director round``; made by
        :meth:`ensure`), and ``bridge-NAME`` for a venue's bridge. Made on first use (password
        stored in ``accounts.json``, hashed in ``passwd``; with ``event``, the ACL is written
        again: a running broker takes both on :func:`reload_running`); returns ``{"username",
        "password"}``.

        Raises:
            BrokerError: a name that is not ``director-commands`` or ``bridge-`` followed by 1
                to 32 letters, digits, ``-`` or ``_``; mosquitto_passwd failing.
        """
        if username != COMMANDS_USER and not re.fullmatch(
            r"bridge-[A-Za-z0-9][A-Za-z0-9_-]{0,31}", username
        ):
            raise BrokerError(
                f"account {username!r}: accepted {COMMANDS_USER!r} or 'bridge-NAME' (NAME: 1 to "
                "32 letters, digits, '-' or '_')"
            )
        self.ensure()
        data = self._read()
        services = data.setdefault("services", {})
        if username not in services:
            services[username] = secrets.token_urlsafe(18)
            self._write(data)
            self._set_password(username, services[username])
            if event is not None:
                self.write_acl(event)
        return {"username": username, "password": services[username]}

    def tables(self) -> list[int]:
        """The table numbers with an account."""
        return sorted(int(t) for t in self._read().get("tables", []))

    def _set_password(self, user: str, password: str) -> None:
        args = [_passwd_tool(), "-b", str(self.passwd), user, password]
        if not self.passwd.exists():
            args.insert(1, "-c")
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            raise BrokerError(
                f"mosquitto_passwd could not set {user}'s password in {self.passwd}: "
                f"{(done.stderr or done.stdout).strip()}"
            )
        with contextlib.suppress(OSError):
            os.chmod(self.passwd, 0o600)

    def add_tables(self, tables: list[int], event: str) -> dict[int, dict]:
        """New passwords for ``tables`` (an existing table gets a new one; the old stops
        working); returns ``{N: {"username", "password"}}``. Rewrites the ACL for ``event``.

        Raises:
            BrokerError: a table number out of 1 to 999, or mosquitto_passwd failing.
        """
        bad = [t for t in tables if not 1 <= int(t) <= protocol.TABLE_MAX]
        if bad:
            raise BrokerError(f"tables {bad}: accepted table numbers 1 to {protocol.TABLE_MAX}")
        self.ensure()
        out = {}
        for t in tables:
            password = secrets.token_urlsafe(18)
            self._set_password(table_user(t), password)
            out[int(t)] = {"username": table_user(t), "password": password}
        data = self._read()
        data["tables"] = sorted({*data.get("tables", []), *map(int, tables)})
        self._write(data)
        self.write_acl(event)
        return out

    def events(self) -> list[str]:
        """Every event whose ACL this directory has written (in the order first written): the
        ACL covers them all, so preparing another event never locks out one that runs."""
        found = self._read().get("events")
        if isinstance(found, list):
            return [e for e in found if isinstance(e, str) and protocol.is_event_name(e)]
        # a directory from before the list: the events its ACL file already names
        try:
            text = self.acl.read_text(encoding="utf-8")
        except OSError:
            return []
        named = re.findall(r"^topic readwrite companion/([^/\s]+)/#$", text, re.MULTILINE)
        return [e for e in dict.fromkeys(named) if protocol.is_event_name(e)]

    def write_acl(self, event: str) -> None:
        """The ACL for every account (see the module docstring), for ``event`` and every event
        written before it (:meth:`events`): one broker may serve several events of this machine
        (``tables add --event other`` while ``event`` runs), and the one file it reloads must
        keep each event's topics. A table's account is table N of each of them."""
        event = protocol.check_event(event)
        data = self._read()
        events = self.events()
        if event not in events:
            data["events"] = events = [*events, event]
            self._write(data)
        lines = [
            "# generated by companion director: do not edit (companion director tables add)",
        ]
        # the director's session, its short commands and each venue's bridge: everything
        for user in (DIRECTOR_USER, *sorted(data.get("services", {}))):
            lines.append(f"user {user}")
            lines += [f"topic readwrite {protocol.prefix(e)}#" for e in events]
            lines.append("")
        for t in self.tables():
            lines.append(f"user {table_user(t)}")
            for e in events:
                prefix = protocol.prefix(e)
                for kind in protocol.FROM_TABLE:
                    lines.append(f"topic write {protocol.topic(prefix, t, kind)}")
                for kind in protocol.TO_TABLE:
                    lines.append(f"topic read {protocol.topic(prefix, t, kind)}")
            lines.append("")
        tmp = self.acl.with_suffix(".tmp")
        tmp.write_text("\n".join(lines), encoding="utf-8")
        tmp.replace(self.acl)


@dataclass
class TLSFiles:
    """The broker's TLS files: the hall's CA certificate, the broker's certificate and key."""

    ca: Path
    cert: Path
    key: Path


class Broker:
    """A Mosquitto run by the director with a generated configuration.

    Args:
        accounts: the director's :class:`Accounts`.
        event: the tournament's short name (for the ACL).
        port: the plain MQTT port.
        listen: the addresses to listen on (``127.0.0.1`` always included; ``""`` means every
            address).
        tls: with :class:`TLSFiles`, a TLS listener on ``tls_port`` too.
        extra: more configuration lines (a bridge: :func:`bridge_lines`).
    """

    def __init__(
        self,
        accounts: Accounts,
        event: str,
        port: int = 1883,
        listen: tuple[str, ...] = ("127.0.0.1",),
        tls: TLSFiles | None = None,
        tls_port: int = 8883,
        extra: list[str] | None = None,
    ) -> None:
        self.accounts = accounts
        self.event = event
        self.port = port
        self.listen = tuple(dict.fromkeys(("127.0.0.1", *listen))) if "" not in listen else ("",)
        self.tls = tls
        self.tls_port = tls_port
        self.extra = list(extra or [])
        self.process: subprocess.Popen | None = None

    @property
    def conf(self) -> Path:
        return self.accounts.broker_dir / "mosquitto.conf"

    @property
    def log(self) -> Path:
        return self.accounts.broker_dir / "mosquitto.log"

    @property
    def pid_file(self) -> Path:
        return self.accounts.broker_dir / "mosquitto.pid"

    def config_text(self) -> str:
        """The generated mosquitto.conf."""
        d = self.accounts.broker_dir
        user = pwd.getpwuid(os.geteuid()).pw_name
        lines = [
            "# generated by companion director on every start: do not edit",
            f"user {user}",
            "per_listener_settings false",
            "allow_anonymous false",
            f"password_file {self.accounts.passwd}",
            f"acl_file {self.accounts.acl}",
            "persistence true",
            f"persistence_location {d}/",
            "persistence_file mosquitto.db",
            # saved every 5 s, and a round's set-ups at once (SIGUSR1, Broker.save): saving at
            # every change (autosave_on_changes) wrote the whole file (12 MB with 200 tables'
            # sessions) several times a second and stalled the broker (bench_tournament_scale)
            "autosave_interval 5",
            f"pid_file {self.pid_file}",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
            "log_timestamp_format %Y-%m-%dT%H:%M:%S",
            f"max_packet_size {protocol.BROKER_MAX_BYTES}",
            # the director's persistent session keeps every table's messages while it restarts
            "max_queued_messages 200000",
            "max_inflight_messages 100",
            "",
        ]
        # a listener's own option, after each listener line: each account may use only its own
        # client id, so a table cannot take the director's session (or another table's)
        only_own_id = "use_username_as_clientid true"
        for address in self.listen:
            lines += [f"listener {self.port} {address}".rstrip(), only_own_id]
        if self.tls is not None:
            for address in self.listen:  # each TLS listener carries its own certificate lines
                lines += [
                    f"listener {self.tls_port} {address}".rstrip(),
                    only_own_id,
                    f"cafile {self.tls.ca}",
                    f"certfile {self.tls.cert}",
                    f"keyfile {self.tls.key}",
                    "tls_version tlsv1.2",
                ]
        lines += self.extra
        return "\n".join(lines) + "\n"

    def start(self, timeout: float = 10.0) -> None:
        """Write the configuration and start Mosquitto; returns once it accepts connections.

        Raises:
            BrokerError: it exited (the log's last lines say why) or did not listen in time.
        """
        self.accounts.ensure()
        self.accounts.write_acl(self.event)
        self._stop_left_behind(timeout)
        self.conf.write_text(self.config_text(), encoding="utf-8")
        for port in (self.port, self.tls_port if self.tls is not None else None):
            if port is not None and port_in_use(port):
                raise BrokerError(
                    f"port {port} is already in use on this machine, so the director's own "
                    "broker cannot listen there (often Debian's mosquitto service: `sudo "
                    "systemctl disable --now mosquitto`); give another with --broker-port PORT, "
                    f"or use that broker with --broker mqtt://127.0.0.1:{port}"
                )
        errors = self.accounts.broker_dir / "mosquitto.stderr"
        with open(errors, "wb") as err:  # the child keeps its own copy of the descriptor
            self.process = subprocess.Popen(
                [mosquitto_path(), "-c", str(self.conf)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
            )
        atexit.register(self.kill)  # a broker never outlives the process that started it
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = errors.read_text(errors="replace")
                raise BrokerError(
                    f"mosquitto exited at start (code {self.process.returncode}) on port "
                    f"{self.port}: {err.strip() or self.log_tail()}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    pass
            except OSError:
                time.sleep(0.02)
                continue
            # the port answers; it is this broker's only if it is still running a moment later
            # (a listener started elsewhere since the check above answers too)
            time.sleep(0.1)
            if self.process.poll() is None:
                return
        self.stop()
        raise BrokerError(f"mosquitto did not listen on 127.0.0.1:{self.port} within {timeout} s")

    def _stop_left_behind(self, timeout: float) -> None:
        """Stop this directory's own Mosquitto left running by a director that did not stop
        (``kill -9``, a crash): recognised by its pid file and its command line
        (:func:`running_broker`). SIGTERM lets it save its sessions and queued messages, which
        the broker started next loads; SIGKILL after ``timeout`` s. Any other program on the
        port is left alone (and said by :meth:`start`)."""
        pid = running_broker(self.accounts)
        if pid is None or (self.process is not None and self.process.pid == pid):
            return
        log.warning(
            "director: its own broker (pid %d) was left running by a director that did not "
            "stop; stopping it and starting it afresh",
            pid,
        )
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 2.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                if running_broker(self.accounts) != pid or _zombie(pid):
                    return
                time.sleep(0.02)
        raise BrokerError(f"the director's old broker (pid {pid}) did not stop; stop it by hand")

    def log_tail(self, lines: int = 5) -> str:
        """The last lines of the broker's log."""
        try:
            return " | ".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def reload(self) -> None:
        """SIGHUP: Mosquitto reloads the password file and the ACL."""
        if self.running:
            self.process.send_signal(signal.SIGHUP)

    def save(self, timeout: float = 2.0) -> bool:
        """SIGUSR1: Mosquitto writes its persistence file now (see :func:`save_running`); waits
        up to ``timeout`` seconds until the file is rewritten. True when it was."""
        if not self.running:
            return False
        db = self.accounts.broker_dir / "mosquitto.db"

        def stamp():
            try:
                st = db.stat()
            except OSError:
                return None
            return (st.st_mtime_ns, st.st_ino, st.st_size)

        before = stamp()
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if stamp() != before:
                return True
            time.sleep(0.01)
        return False

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM (Mosquitto saves its persistence), then SIGKILL after ``timeout`` s."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        """SIGKILL (a power cut of the broker: what it had not saved is gone)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _zombie(pid: int) -> bool:
    """Whether process ``pid`` has exited and waits only to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


def bridge_lines(name: str, central: str, username: str, password: str, event: str) -> list[str]:
    """Mosquitto configuration lines that bridge this venue's broker to a central one: every
    topic of the event in both directions at QoS 1, the bridge's session kept
    (``cleansession false``) so nothing queued is lost while the link between venues is down.

    Args:
        name: the bridge connection's name (the venue).
        central: ``HOST:PORT`` of the central broker.
        username, password: the venue's account on the central broker: its
            ``Accounts.service("bridge-NAME")`` (the director's ACL; the central broker makes
            the bridge's client id its username, so it needs an account of its own).
        event: the tournament's short name.
    """
    return [
        f"connection {name}",
        f"address {central}",
        f"remote_username {username}",
        f"remote_password {password}",
        f"remote_clientid bridge-{name}",
        f"topic {protocol.prefix(event)}# both 1",
        "cleansession false",
        "bridge_protocol_version mqttv311",
        "try_private true",
        "restart_timeout 1 5",
        "",
    ]


def running_broker(accounts: Accounts) -> int | None:
    """The pid of the Mosquitto that a director started from ``accounts``' directory and that
    still runs (its pid file names a live process whose command line is ``mosquitto -c`` this
    directory's ``mosquitto.conf``), else None. A pid file left behind, or a pid now used by
    another program, is None."""
    pid_file = accounts.broker_dir / "mosquitto.pid"
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    conf = str(accounts.broker_dir / "mosquitto.conf").encode()
    if not argv or not Path(argv[0].decode(errors="replace")).name.startswith("mosquitto"):
        return None
    if conf not in argv:
        return None
    return pid


def reload_running(accounts: Accounts) -> bool:
    """SIGHUP the broker that the director runs from ``accounts``' directory (its pid file),
    if it is running; True when one was signalled."""
    return _signal_running(accounts, signal.SIGHUP)


def save_running(accounts: Accounts) -> bool:
    """SIGUSR1 the director's running broker (as :func:`reload_running` finds it): Mosquitto
    writes its persistence file at once (a round's retained set-ups survive a ``kill -9``;
    Mosquitto 2.0's ``autosave_on_changes`` does not count retained messages). True when one
    was signalled."""
    return _signal_running(accounts, signal.SIGUSR1)


def _signal_running(accounts: Accounts, sig: int) -> bool:
    pid = running_broker(accounts)
    if pid is None:
        return False
    try:
        os.kill(pid, sig)
    except OSError:
        return False
    return True


CA_DAYS_MAX = 3650
"""The longest validity of the hall's certificates, in days (ten years)."""


def make_hall_ca(directory: Path, names: list[str], days: int = 825) -> TLSFiles:
    """A self-signed CA for a hall and a broker certificate signed by it, with openssl.

    Args:
        directory: where to write ``ca.pem``, ``ca.key``, ``broker.pem``, ``broker.key``.
        names: the broker's host names and IP addresses (subjectAltName), e.g.
            ``["director.local", "10.42.0.1", "127.0.0.1"]``.
        days: validity of both certificates, 1 to :data:`CA_DAYS_MAX`.

    Returns:
        The :class:`TLSFiles` (copy ``ca.pem`` to each table; ``[tournament] ca``).

    Raises:
        BrokerError: days out of range, a name that is neither a host name nor an IP address
            (:func:`check_host_name`), openssl missing or failing.
    """
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= CA_DAYS_MAX:
        raise BrokerError(f"--days {days}: accepted a whole number of days, 1 to {CA_DAYS_MAX}")
    names = [check_host_name(n) for n in names]
    if not names:
        raise BrokerError("the broker's certificate needs at least one host name or address")
    tool = shutil.which("openssl")
    if tool is None:
        raise BrokerError("openssl is not installed (Debian package 'openssl')")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    ca, ca_key = directory / "ca.pem", directory / "ca.key"
    cert, key = directory / "broker.pem", directory / "broker.key"
    csr, ext = directory / "broker.csr", directory / "broker.ext"
    alt = ",".join((f"IP:{n}" if _is_ip(n) else f"DNS:{n}") for n in dict.fromkeys(names))
    ext.write_text(
        f"subjectAltName={alt}\nbasicConstraints=CA:FALSE\n"
        "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
    )
    steps = [
        [
            tool,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            ca_key,
            "-out",
            ca,
            "-days",
            str(days),
            "-subj",
            "/CN=Table Companion hall CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ],
        [
            tool,
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            key,
            "-out",
            csr,
            "-subj",
            f"/CN={names[0]}",
        ],
        [
            tool,
            "x509",
            "-req",
            "-in",
            csr,
            "-CA",
            ca,
            "-CAkey",
            ca_key,
            "-CAcreateserial",
            "-out",
            cert,
            "-days",
            str(days),
            "-extfile",
            ext,
        ],
    ]
    for args in steps:
        done = subprocess.run([str(a) for a in args], capture_output=True, text=True)
        if done.returncode != 0:
            raise BrokerError(f"openssl failed ({args[1]}): {done.stderr.strip()}")
    for p in (ca_key, key):
        os.chmod(p, 0o600)
    csr.unlink(missing_ok=True)
    return TLSFiles(ca, cert, key)


_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def check_host_name(name: str, where: str = "--name") -> str:
    """A name for the broker's certificate, checked: an IPv4 or IPv6 address, or a DNS host
    name (RFC 1123: dot-separated labels of 1 to 63 letters, digits and hyphens, not starting
    or ending with a hyphen; 253 characters at most; not all digits and dots, which is an IPv4
    address or nothing). Anything else (a comma, which would add
    names to the certificate; a newline, which would add lines to ``broker.ext``; a space, a
    wildcard) is refused.

    Raises:
        BrokerError: names the input, what is wrong and what is accepted.
    """
    text = str(name)
    if "%" not in text and _is_ip(text):  # a scoped IPv6 address (fe80::1%eth0) is no SAN
        return text
    labels = text[:-1].split(".") if text.endswith(".") else text.split(".")
    numeric = bool(re.fullmatch(r"[0-9.]+", text))  # 999.1.1.1: an IPv4 address gone wrong
    if not text or numeric or len(text) > 253 or not all(_LABEL.fullmatch(part) for part in labels):
        raise BrokerError(
            f"{where} {text!r}: not a host name or an IP address; accepted an address "
            "(10.42.0.1, fd00::1) or a host name of letters, digits, hyphens and dots "
            "(director.local)"
        )
    return text


def _is_ip(name: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
