"""Install the table service on Raspberry Pi OS: ``make install`` / ``companion install``.

It refuses at once a 32-bit system (armhf/armel userland, even on a 64-bit kernel): numpy, Pillow,
OpenCV, marisa-trie and regex have no 32-bit ARM wheels on PyPI, so pip would compile for hours or
fail; the message names the image to use instead, Raspberry Pi OS (64-bit), which runs on every
supported board (Pi 4, Pi 5, Zero 2 W).

The steps, each skipped when already done so the installer is safe to run twice:

1. the Debian packages (Python, lgpio, picamera2, I2C tools, SCOWL, WordNet, GCIDE, fonts);
   dictd, the DICT server dict-gcide depends on, is masked first so that it never starts, and
   stopped and masked if it was already there (:data:`UNUSED_DAEMONS`);
2. I2C switched on (``raspi-config nonint do_i2c 0``);
3. the service user ``companion`` (a system user, no login) in the gpio, i2c, video and dialout
   groups;
4. the code copied to the prefix (``/opt/table-companion``), owned by root and read-only to others
   (never by the login user who cloned it), and a virtual environment there with the package
   installed, made with Debian's ``/usr/bin/python3`` whatever ``python3`` is first on the PATH (a
   pyenv one under ``/root`` cannot be run by the service user and sees none of Debian's packages;
   an environment made with another interpreter is made again), with
   ``--system-site-packages`` so Debian's picamera2 and lgpio are seen; the ``pi`` extra
   keeps numpy below 2 so that Debian's numpy 1.24, which picamera2's simplejpeg is built against,
   is the one imported);
5. the configuration directory ``/etc/table-companion`` with the standard pin map, never
   overwriting a box's own;
6. the udev rule of the optional Pico timer head (firmware/99-companion-head.rules) and the
   systemd units (systemd/table-companion.service, prefix and user filled in, and only the
   supplementary groups this system has: on a Debian PC without ``gpio`` the unit still starts;
   and systemd/table-companion-link.service, the tournament link);
7. the lexicon index, the explain index and the Wordinoes judge's cache built in the state
   directory, as the service user (``companion lexicon build``, ``companion lexicon
   explain-index``, ``companion wordinoes warm``): the table service never builds them itself;
8. the service enabled and (re)started (in a chroot, where no systemd runs, enabled only), and
   the tournament link too when ``table.toml`` has a ``[tournament]`` section (else it waits:
   ``sudo systemctl enable --now table-companion-link`` once the box joins a tournament).

``--dry-run`` prints the steps and their commands without running anything (it still looks, read
only, at what is already done). This module imports only the standard library so that
``python3 -m companion.platform.install`` runs from a fresh clone before any virtual environment
exists.
"""

from __future__ import annotations

import argparse
import contextlib
import grp
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import CompanionError

SOURCE = Path(__file__).resolve().parent.parent.parent
UNIT_NAME = "table-companion.service"
LINK_UNIT_NAME = "table-companion-link.service"
DEFAULT_PREFIX = Path("/opt/table-companion")
DEFAULT_USER = "companion"
STATE_DIR = Path("/var/lib/table-companion")
CONFIG_DIR = Path("/etc/table-companion")
UNIT_DIR = Path("/etc/systemd/system")
# Debian's own interpreter: the one python3-picamera2 and python3-lgpio are installed for, and one
# the service user can run (a pyenv or conda ``python3`` first on root's PATH is neither)
SYSTEM_PYTHON = Path("/usr/bin/python3")
UDEV_DIR = Path("/etc/udev/rules.d")
UDEV_RULE = "99-companion-head.rules"
GROUPS = ("gpio", "i2c", "video", "dialout")
APT_PACKAGES = (
    "python3-venv",
    "python3-dev",
    "python3-lgpio",
    "python3-picamera2",
    "python3-smbus2",
    "i2c-tools",
    "rsync",
    "scowl",
    "wordnet-base",
    "dict-gcide",  # GCIDE, read from its files by the lexicon's screen (docs/lexicon.md)
    "fonts-dejavu-core",
    "fonts-wqy-microhei",  # the OLED's font for names in Chinese, Japanese, Korean
)


UNUSED_DAEMONS = {"dict-gcide": ("dictd", "dictd.service")}
"""Servers a package of APT_PACKAGES depends on that the table never uses: dict-gcide depends on
``dictd | dict-server`` (a hard dependency, which ``--no-install-recommends`` cannot leave out),
and dictd's postinst enables and starts the DICT server on port 2628. The lexicon reads GCIDE's
files itself, so the unit is masked before the package is installed (invoke-rc.d starts no masked
unit) and stopped and masked if it is already there: a Pi runs no idle server (docs/pi.md)."""

SIXTY_FOUR_BIT_IMAGE = "Raspberry Pi OS (64-bit), bookworm (Lite is enough)"
"""The image to use: named in the refusal on a 32-bit system, in docs/pi.md and the BOM."""


class InstallError(CompanionError, RuntimeError):
    """The installer cannot go on: names the step and the command that failed."""


def debian_architecture() -> str | None:
    """dpkg's architecture of this system (``arm64``, ``armhf``, ``amd64``), or None without dpkg.
    On a Pi 4 or 5 the 32-bit Raspberry Pi OS runs a 64-bit kernel (``uname -m`` says aarch64)
    over an armhf userland, so the userland's own word is asked."""
    try:
        out = subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return None
    return out or None


def thirty_two_bit_problem(
    machine: str | None = None, arch: str | None = None, pointer_bits: int | None = None
) -> str | None:
    """Why this system cannot run the project, or None: a 32-bit ARM userland (armhf, armel,
    armv6l/armv7l) or a 32-bit Python. The arguments default to this machine's
    (``os.uname().machine``, :func:`debian_architecture`, the interpreter's pointer size)."""
    machine = machine if machine is not None else os.uname().machine
    arch = arch if arch is not None else debian_architecture()
    pointer_bits = pointer_bits if pointer_bits is not None else sys.maxsize.bit_length() + 1
    arm32 = arch in ("armhf", "armel") or machine in ("armv6l", "armv7l", "armv8l")
    if not arm32 and pointer_bits >= 64:
        return None
    what = f"{arch or machine}, {pointer_bits}-bit Python"
    return (
        f"this is a 32-bit system ({what}). The Table Companion needs a 64-bit one: numpy, Pillow, "
        "OpenCV, marisa-trie and regex have no 32-bit ARM wheels, so the install would compile "
        f"for hours or fail. Write {SIXTY_FOUR_BIT_IMAGE} to the card with Raspberry Pi Imager "
        "(Raspberry Pi OS (other) -> Raspberry Pi OS Lite (64-bit)); it runs on a Pi 4, a Pi 5 "
        "and a Zero 2 W. See docs/pi.md."
    )


@dataclass
class Step:
    """One install step: ``commands`` (argv lists) run in order unless ``done()`` says it is
    already done. ``note`` explains why a step is skipped or what it does."""

    title: str
    commands: list[list[str]] = field(default_factory=list)
    done: Callable[[], bool] | None = None
    note: str = ""
    action: Callable[[], None] | None = None  # a Python action instead of / after commands
    skip: bool = False  # cannot be done on this system (the note says why)


@dataclass
class Options:
    """Where and as whom to install. Paths are absolute."""

    prefix: Path = DEFAULT_PREFIX
    user: str = DEFAULT_USER
    source: Path = SOURCE
    unit_dir: Path = UNIT_DIR
    config_dir: Path = CONFIG_DIR
    state_dir: Path = STATE_DIR
    udev_dir: Path = UDEV_DIR
    start: bool = True
    lexicon: bool = True
    python: Path = SYSTEM_PYTHON  # the interpreter of the service's virtual environment


def venv_home(venv: Path) -> Path | None:
    """The folder of the interpreter a virtual environment was made with (``home`` in its
    ``pyvenv.cfg``), or None when it has none."""
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home":
            return Path(value.strip())
    return None


def installed_packages(packages: Sequence[str]) -> set[str]:
    """The ``packages`` dpkg reports installed (one ``dpkg-query`` call)."""
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Package} ${Status}\n", *packages],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
    except OSError:
        return set()
    return {line.split()[0] for line in out.splitlines() if line.endswith("install ok installed")}


def available_packages(packages: Sequence[str]) -> set[str]:
    """The ``packages`` apt can install here (one ``apt-cache policy`` call); picamera2 and lgpio
    are only in Raspberry Pi OS's archive."""
    try:
        out = subprocess.run(
            ["apt-cache", "policy", *packages], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        return set()
    found, name = set(), None
    for line in out.splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            name = line[:-1]
        elif name and line.strip().startswith("Candidate:") and "(none)" not in line:
            found.add(name)
    return found


def _user_groups(user: str) -> set[str]:
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return set()
    names = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    with contextlib.suppress(KeyError):
        names.add(grp.getgrgid(entry.pw_gid).gr_name)
    return names


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def render_unit(
    template: str, options: Options, groups_exist: Callable[[str], bool] = lambda g: True
) -> str:
    """The unit text with the install prefix, service user and directories filled in, and only
    the supplementary groups that ``groups_exist`` (systemd refuses to start a unit naming a
    group the system lacks: ``gpio`` and ``i2c`` exist only on Raspberry Pi OS).

    The template (systemd/table-companion.service) is written for the defaults; other choices
    replace them textually.
    """
    text = template.replace(str(DEFAULT_PREFIX), str(options.prefix))
    if options.user != DEFAULT_USER:
        text = text.replace(f"User={DEFAULT_USER}\n", f"User={options.user}\n")
        text = text.replace(f"Group={DEFAULT_USER}\n", f"Group={options.user}\n")

    def keep_existing(match: re.Match) -> str:
        kept = [g for g in match.group(1).split() if groups_exist(g)]
        return f"SupplementaryGroups={' '.join(kept)}\n" if kept else ""

    return re.sub(r"^SupplementaryGroups=(.*)\n", keep_existing, text, flags=re.M)


def plan(
    options: Options,
    groups_exist: Callable[[str], bool] = _group_exists,
    installed: Callable[[Sequence[str]], set[str]] = installed_packages,
    available: Callable[[Sequence[str]], set[str]] = available_packages,
    booted: Callable[[], bool] | None = None,
    udev: Callable[[], bool] | None = None,
    user_exists: Callable[[str], bool] | None = None,
) -> list[Step]:
    """The install steps for ``options``, in order (nothing is run; ``installed``, ``available``,
    ``groups_exist``, ``booted`` (:func:`systemd_running`), ``udev`` (:func:`udev_running`) and
    ``user_exists`` look at the system, injected for tests)."""
    user_exists = user_exists or _user_exists
    o = options
    venv = o.prefix / ".venv"
    unit_path = o.unit_dir / UNIT_NAME
    template = (o.source / "systemd" / UNIT_NAME).read_text(encoding="utf-8")
    unit_text = render_unit(template, o, groups_exist)
    link_path = o.unit_dir / LINK_UNIT_NAME
    link_template = (o.source / "systemd" / LINK_UNIT_NAME).read_text(encoding="utf-8")
    link_text = render_unit(link_template, o, groups_exist)
    tournament = in_tournament(o.config_dir / "table.toml")
    steps: list[Step] = []

    have = installed(APT_PACKAGES)
    missing = [p for p in APT_PACKAGES if p not in have]
    known = available(missing) if missing else set()
    wanted = [p for p in missing if p in known or not p.startswith("python3-")]
    unknown = sorted(set(missing) - set(wanted))
    daemons = [UNUSED_DAEMONS[p] for p in APT_PACKAGES if p in UNUSED_DAEMONS]
    premask = [u for p, (_, u) in UNUSED_DAEMONS.items() if p in wanted]
    servers = installed([d for d, _ in daemons])  # installed already: perhaps running
    steps.append(
        Step(
            "Debian packages",
            [
                ["apt-get", "update"],
                *[["systemctl", "mask", u] for u in premask],  # never started by the install
                ["apt-get", "install", "-y", "--no-install-recommends", *wanted],
            ]
            if wanted
            else [],
            done=lambda: not wanted,
            note=("not in this system's archive (Raspberry Pi OS only): " + ", ".join(unknown))
            if unknown
            else "",
        )
    )

    booted_now = (booted or systemd_running)()

    def masked() -> bool:
        return all((o.unit_dir / u).resolve() == Path("/dev/null") for _, u in daemons)

    steps.append(
        Step(
            f"unused servers masked ({', '.join(u for _, u in daemons)})",
            [
                *[["systemctl", "mask", u] for _, u in daemons],
                *[["systemctl", "stop", u] for d, u in daemons if booted_now and d in servers],
            ],
            done=masked,
            note="dict-gcide's dictionary server: the lexicon reads GCIDE's files itself",
        )
    )

    raspi = shutil.which("raspi-config")
    steps.append(
        Step(
            "I2C switched on",
            [["raspi-config", "nonint", "do_i2c", "0"]] if raspi else [],
            done=_i2c_enabled if raspi else None,
            skip=not raspi,
            note=""
            if raspi
            else "raspi-config not found: not Raspberry Pi OS, switch I2C on by hand",
        )
    )

    groups = [g for g in GROUPS if groups_exist(g)]
    absent = [g for g in GROUPS if g not in groups]
    user_cmds = []
    if not user_exists(o.user):
        user_cmds.append(
            [
                "useradd",
                "--system",
                "--user-group",
                "--home-dir",
                str(o.state_dir),
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                "--comment",
                "Table Companion service",
                o.user,
            ]
        )
    if groups:
        user_cmds.append(["usermod", "--append", "--groups", ",".join(groups), o.user])
    steps.append(
        Step(
            f"service user {o.user} in groups {', '.join(groups) or '(none)'}",
            user_cmds,
            done=lambda: user_exists(o.user) and set(groups) <= _user_groups(o.user),
            note=f"groups missing on this system: {', '.join(absent)}" if absent else "",
        )
    )

    same = o.source.resolve() == o.prefix.resolve() if o.prefix.exists() else False
    copy = [
        ["install", "-d", "-m", "0755", "-o", "root", "-g", "root", str(o.prefix)],
        [
            "rsync",
            "-a",
            "--delete",
            # root's files, read-only to the service: not the login user's who cloned it
            "--chown=root:root",
            "--chmod=u+rwX,go+rX,go-w",
            "--exclude=.venv/",
            "--exclude=.git/",
            "--exclude=__pycache__/",
            "--exclude=*.egg-info/",
            "--exclude=.pytest_cache/",
            "--exclude=.ruff_cache/",
            f"{o.source}/",
            f"{o.prefix}/",
        ],
    ]
    steps.append(
        Step(
            f"code copied to {o.prefix}",
            [] if same else copy,
            done=lambda: same,
            note="the source is the prefix" if same else "",
        )
    )
    venv_cmds = []
    if not (venv / "bin" / "python").exists():
        venv_cmds.append([str(o.python), "-m", "venv", "--system-site-packages", str(venv)])
    elif venv_home(venv) != o.python.parent:
        # made by an earlier install with another interpreter: made again with Debian's
        venv_cmds.append(
            [str(o.python), "-m", "venv", "--clear", "--system-site-packages", str(venv)]
        )
    extras = "pi" if os.uname().machine == "aarch64" else ""
    target = f"{o.prefix}[{extras}]" if extras else str(o.prefix)
    venv_cmds.append(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--editable", target]
    )
    steps.append(Step(f"Python environment {venv}", venv_cmds))

    pinmap = o.config_dir / "pinmap.toml"
    config_cmds = [["install", "-d", "-m", "0750", "-g", o.user, str(o.config_dir)]]
    if not pinmap.exists():
        config_cmds.append(
            [
                "install",
                "-m",
                "0640",
                "-g",
                o.user,
                str(o.source / "hardware" / "pinmap.toml"),
                str(pinmap),
            ]
        )
    steps.append(
        Step(
            f"configuration {o.config_dir} (the box's own pin map kept)",
            config_cmds,
            done=lambda: pinmap.exists() and o.config_dir.is_dir(),
        )
    )

    rule = o.source / "firmware" / UDEV_RULE
    if rule.exists():  # the optional Pico timer head's stable serial port name
        installed_rule = o.udev_dir / UDEV_RULE
        reload = [["udevadm", "control", "--reload-rules"]] if (udev or udev_running)() else []
        steps.append(
            Step(
                f"udev rule {installed_rule} (the Pico timer head's port)",
                [["install", "-D", "-m", "0644", str(rule), str(installed_rule)], *reload],
                done=lambda: (
                    installed_rule.exists() and installed_rule.read_bytes() == rule.read_bytes()
                ),
            )
        )

    def write_unit() -> None:
        o.unit_dir.mkdir(parents=True, exist_ok=True)
        unit_path.write_text(unit_text, encoding="utf-8")
        link_path.write_text(link_text, encoding="utf-8")

    steps.append(
        Step(
            f"systemd units {unit_path} and {link_path.name} (the tournament link)",
            [["systemctl", "daemon-reload"]] if booted_now else [],
            done=lambda: all(
                path.exists() and path.read_text(encoding="utf-8") == text
                for path, text in ((unit_path, unit_text), (link_path, link_text))
            ),
            action=write_unit,
        )
    )

    as_service = [
        "runuser",
        "-u",
        o.user,
        "--",
        "env",
        f"STATE_DIRECTORY={o.state_dir}",
        f"CONFIGURATION_DIRECTORY={o.config_dir}",
        str(venv / "bin" / "companion"),
    ]
    if o.lexicon:
        steps.append(
            Step(
                "lexicon index, explain index and the Wordinoes judge's cache built (as the "
                "service user, in the state directory)",
                [
                    ["install", "-d", "-m", "0750", "-o", o.user, "-g", o.user, str(o.state_dir)],
                    [*as_service, "lexicon", "build"],
                    [*as_service, "lexicon", "explain-index"],
                    [*as_service, "wordinoes", "warm"],
                ],
                note="each rebuilt only when its sources changed",
            )
        )
    if o.start:
        steps.append(
            Step(
                "service enabled and restarted" if booted_now else "service enabled",
                [
                    ["systemctl", "enable", UNIT_NAME],
                    *([["systemctl", "restart", UNIT_NAME]] if booted_now else []),
                ],
                note=""
                if booted_now
                else "systemd is not running here (a chroot?): it starts at the next boot",
            )
        )
        if tournament:  # table.toml names a tournament: its link runs beside the service
            steps.append(
                Step(
                    "tournament link enabled and restarted"
                    if booted_now
                    else "tournament link enabled",
                    [
                        ["systemctl", "enable", LINK_UNIT_NAME],
                        *([["systemctl", "restart", LINK_UNIT_NAME]] if booted_now else []),
                    ],
                )
            )
    return steps


def in_tournament(table_toml: Path) -> bool:
    """Whether the box's ``table.toml`` has a ``[tournament]`` section (docs/tournament.md):
    then ``companion link`` is enabled beside the table service. An unreadable file is no
    tournament (the table service itself says what is wrong with it)."""
    import tomllib

    try:
        return isinstance(
            tomllib.loads(table_toml.read_text(encoding="utf-8")).get("tournament"), dict
        )
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return False


def systemd_running() -> bool:
    """True when systemd is the running init (sd_booted(3)): not in a chroot or a container
    without it, where ``systemctl`` can enable a unit but not start one."""
    return Path("/run/systemd/system").is_dir()


def udev_running() -> bool:
    """True when udevd listens (its control socket exists) and ``udevadm`` is installed."""
    return Path("/run/udev/control").exists() and shutil.which("udevadm") is not None


def _user_exists(user: str) -> bool:
    try:
        pwd.getpwnam(user)
    except KeyError:
        return False
    return True


def _i2c_enabled() -> bool:
    # raspi-config's get_i2c prints 0 when I2C is on
    try:
        out = subprocess.run(
            ["raspi-config", "nonint", "get_i2c"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return False
    return out == "0"


Runner = Callable[[Sequence[str]], int]


def _run(argv: Sequence[str]) -> int:
    try:
        return subprocess.run(list(argv), check=False).returncode
    except OSError as exc:  # the program is missing: the step's error names the command
        print(f"    {argv[0]}: {exc.strerror}", file=sys.stderr)
        return 127


def execute(
    steps: list[Step],
    dry_run: bool = False,
    run: Runner = _run,
    say: Callable[[str], None] = print,
) -> int:
    """Run (or, ``dry_run``, print) the steps; returns how many steps did something.

    Raises:
        InstallError: a command failed (names the step, the command and its exit status).
    """
    acted = 0
    for number, step in enumerate(steps, 1):
        head = f"[{number}/{len(steps)}] {step.title}"
        if step.note:
            head += f" ({step.note})"
        if step.skip:
            say(f"{head}: skipped")
            continue
        done = step.done() if step.done is not None else False
        if done:
            say(f"{head}: already done")
            continue
        say(f"{head}:")
        if step.action is not None:
            say("    (write the file)" if dry_run else "    writing the file")
            if not dry_run:
                step.action()
        for argv in step.commands:
            say("    " + shlex.join(argv))
            if dry_run:
                continue
            status = run(argv)
            if status != 0:
                raise InstallError(
                    f"step {number} ({step.title}): `{shlex.join(argv)}` exited with status "
                    f"{status}; fix the cause and run the installer again (done steps are skipped)"
                )
        acted += 1
    return acted


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The installer's options, shared by ``companion install`` and ``python -m``."""
    parser.add_argument(
        "--dry-run", action="store_true", help="print the steps and commands, change nothing"
    )
    parser.add_argument(
        "--prefix", type=Path, default=DEFAULT_PREFIX, help=f"install here ({DEFAULT_PREFIX})"
    )
    parser.add_argument("--user", default=DEFAULT_USER, help=f"the service user ({DEFAULT_USER})")
    parser.add_argument("--no-start", action="store_true", help="do not enable and start it")
    parser.add_argument("--no-lexicon", action="store_true", help="do not build the lexicon")


def run_install(args: argparse.Namespace, say: Callable[[str], None] = print) -> int:
    """Install (or print, with ``--dry-run``) as the parsed ``args`` say; returns the exit code.

    Raises:
        InstallError: not root (and not a dry run), or a step failed.
    """
    problem = thirty_two_bit_problem()
    if problem:
        raise InstallError(problem)
    if not args.dry_run and os.geteuid() != 0:
        raise InstallError(
            "installing needs root: run `sudo make install` (or `--dry-run` to see the steps)"
        )
    if not args.prefix.is_absolute():
        raise InstallError(f"--prefix {args.prefix}: accepted an absolute path")
    options = Options(
        prefix=args.prefix,
        user=args.user,
        start=not args.no_start,
        lexicon=not args.no_lexicon,
    )
    steps = plan(options)
    if args.dry_run:
        say("Dry run: nothing is changed. The install would do:")
    acted = execute(steps, dry_run=args.dry_run, say=say)
    if not args.dry_run:
        say(f"Done ({acted} step(s) changed something). `systemctl status {UNIT_NAME}` shows it.")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python3 -m companion.platform.install [--dry-run] ...``"""
    parser = argparse.ArgumentParser(prog="companion install", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_install(args)
    except CompanionError as exc:
        print(f"companion install: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
