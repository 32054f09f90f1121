"""The package's layout rules (../shared/DESIGN.md, "Layout"): games/ holds pure rules and never
imports the table service; every table mode sits in daemon/modes/; no two modules import each
other."""

import ast
from pathlib import Path

import companion
from companion.daemon.config import GAMES
from companion.daemon.modes import MODES

ROOT = Path(companion.__file__).parent


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function, as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): _imports(p) for p in ROOT.rglob("*.py")}


def test_games_never_import_the_table_service():
    offenders = {
        name: sorted(i for i in imports if i.startswith("companion.daemon"))
        for name, imports in MODULES.items()
        if name.startswith("companion.games")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_every_table_mode_lives_in_daemon_modes():
    assert set(MODES) == set(GAMES)
    for target in MODES.values():
        module, _, _ = target.partition(":")
        assert module.startswith("companion.daemon.modes."), target
        assert module in MODULES, target
    assert not [n for n in MODULES if n.endswith(".mode") or n.endswith("iago_timer")]


def test_no_two_modules_import_each_other():
    circles = sorted(
        (a, b)
        for a, imports in MODULES.items()
        for b in imports
        if a < b
        and b in MODULES
        and a in MODULES[b]
        # a package's __init__ may name its own submodules
        and not b.startswith(a + ".")
        and not a.startswith(b + ".")
    )
    assert circles == []


def test_wordinoes_rules_are_split_where_the_rulebook_splits():
    # rulebook: Setup and Turns, all knock, Challenges, Ending the Game, Variations
    from companion.games.wordinoes import allknock, challenges, ending, game, turns, variations

    parts = (turns.SetupAndTurns, allknock.AllKnock, challenges.Challenges, ending.Ending)
    assert all(issubclass(game.Game, part) for part in parts)
    assert game.Game.open_ends is allknock.AllKnock.open_ends
    assert game.Game.vote is challenges.Challenges.vote
    assert game.TableSettings is variations.TableSettings
    for module in (turns, allknock, challenges, ending, variations, game):
        lines = Path(module.__file__).read_text(encoding="utf8").count("\n")
        assert lines < 400, module.__name__
    # the names the rest of the package and the tests import keep their old home
    for name in ("Game", "GameError", "Notice", "TableSettings", "Tile", "Status", "UNKNOWN_TILE"):
        assert hasattr(game, name), name


def test_devices_never_import_the_platform():
    """One direction between the two rooms (issue 47): the box's parts and their drivers
    (devices/: the resilient OLED, the servo's calibration) never import the install, wiring and
    probe commands (platform/), which use the parts."""
    offenders = {
        name: sorted(i for i in imports if i.startswith("companion.platform"))
        for name, imports in MODULES.items()
        if name.startswith("companion.devices")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert any(i.startswith("companion.devices") for i in MODULES["companion.platform.probe"])
