"""Layer boundaries: the numeric core, the dataset layer, the jobs, the models and the CLI
never import Qt; building the command-line parser (``--help``) loads neither numba, scipy
nor Qt; and the import graph only points down the floors (no cycle between them)."""
import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

QT = ("PySide6", "pyqtgraph", "shiboken6")
HEAVY = ("numba", "scipy", "llvmlite") + QT

WALK = """
import importlib, json, pkgutil, sys
names = []
for pkg_name in {packages!r}:
    pkg = importlib.import_module(pkg_name)
    names.append(pkg_name)
    for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
        importlib.import_module(info.name)
        names.append(info.name)
bad = sorted(m for m in sys.modules if m.split(".")[0] in {qt!r})
print(json.dumps({{"imported": names, "qt": bad}}))
"""


def _run(code: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_no_qt_in_any_submodule():
    """Every submodule of core, dataset, jobs, cli, models (walked with pkgutil) imports
    without Qt."""
    packages = ["ntkviz.core", "ntkviz.dataset", "ntkviz.jobs", "ntkviz.cli", "ntkviz.models"]
    out = _run(WALK.format(packages=packages, qt=QT))
    assert out["qt"] == []
    imported = set(out["imported"])
    assert {"ntkviz.core.spectra.mercer", "ntkviz.jobs._curves", "ntkviz.cli._kernel",
            "ntkviz.cli._stability", "ntkviz.dataset.classify",
            "ntkviz.dataset._store"} <= imported  # the walk really went into the packages
    for folder in ("kernels", "spectra", "conv", "deformations", "training", "learning"):
        inside = {m for m in imported if m.startswith(f"ntkviz.core.{folder}.")}
        assert len(inside) >= 2, f"the walk missed ntkviz.core.{folder}"  # every concept folder
    assert len(imported) > 20


def test_limits_is_light():
    out = _run("import json, sys, ntkviz.limits\n"
               "print(json.dumps({'heavy': sorted(m for m in sys.modules if m.split('.')[0] in "
               f"{HEAVY + ('numpy',)!r})}}))")
    assert out["heavy"] == []


HELP = """
import contextlib, io, sys
from ntkviz.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit as exc:
        assert exc.code == 0, exc.code
heavy = sorted({{m.split(".")[0] for m in sys.modules if m.split(".")[0] in {heavy!r}}})
assert not heavy, heavy
"""


def _help_argvs() -> list[list[str]]:
    from ntkviz.cli import COMMANDS
    from ntkviz.panels import specs

    return [["--help"]] + [[c, "--help"] for c in COMMANDS] + [["export", n, "--help"]
                                                             for s in specs() for n in s.names]


@pytest.mark.parametrize("argv", _help_argvs(), ids=" ".join)
def test_help_loads_no_numba_scipy_qt(argv):
    """``ntkviz --help`` and ``ntkviz <cmd> --help`` for every command and export view build
    the whole parser without loading numba, scipy or Qt (ranges come from ntkviz.limits)."""
    proc = subprocess.run([sys.executable, "-c", HELP.format(argv=argv, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.strip().splitlines()[-1:]


@pytest.mark.parametrize("mods", ["ntkviz", "ntkviz.core", "ntkviz.jobs", "ntkviz.cli"])
def test_package_imports_pull_no_qt(mods):
    code = f"import sys, {mods}\nassert not [m for m in sys.modules if m.split('.')[0] in {QT!r}]"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


# --------------------------------------------------------------- the floors of the import graph
PACKAGE = Path(__file__).resolve().parents[1] / "ntkviz"
#: floor of each top-level part of the package: a module may import its own part and any
#: lower floor, never a higher one; parts on one floor do not import each other (so no cycle
#: crosses them), except the front ends on the top floor (GUI, CLI and the figure recipe
#: that joins them: the GUI writes the command the CLI's parser reads back)
FLOORS = {
    "_check": 0, "limits": 0, "_text": 0, "_io": 0, "_env": 0, "resources": 0,
    "core": 1, "dataset": 2, "jobs": 3, "models": 4, "panels": 4, "look_for": 4,
    "gui": 5, "cli": 5, "recipe": 5, "bench": 6, "gallery": 6, "__main__": 6,
}
#: the parts of the top floor that may import each other
FRONT_ENDS = ("gui", "cli", "recipe")
#: base modules (floor 0) in the order they may import each other
BASE_ORDER = ("_check", "limits", "_text", "_io", "resources", "_env")


def _module_name(path: Path) -> str:
    parts = ["ntkviz", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The ntkviz modules ``path`` imports (at module level or inside a function: a lazy
    import is an arrow too), relative imports resolved."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in out if m == "ntkviz" or m.startswith("ntkviz.")}


def _part(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def test_imports_point_down_the_floors():
    """core < dataset < jobs < models < gui/cli (< bench, gallery), over the standard-library
    base (the check family, the range table, text and file helpers): no arrow goes up, none
    goes sideways between parts of one floor, so there is no cycle between them."""
    paths = sorted(PACKAGE.rglob("*.py"))
    assert len(paths) > 100
    bad = []
    for path in paths:
        source = _module_name(path)
        here = _part(source)
        if here == "":
            continue  # ntkviz/__init__.py prepares the environment (imports _env only)
        assert here in FLOORS, f"{source}: give its part a floor in FLOORS"
        for target in _imports(path):
            there = _part(target)
            if there in ("", here) or there not in FLOORS:
                continue
            up = FLOORS[there] > FLOORS[here]
            sideways = FLOORS[there] == FLOORS[here] and here not in FRONT_ENDS and (
                FLOORS[here] != 0 or BASE_ORDER.index(there) > BASE_ORDER.index(here))
            if up or sideways:
                bad.append(f"{source} -> {target}")
    assert not bad, "imports against the floors:\n" + "\n".join(sorted(bad))


def test_the_floor_walk_sees_module_and_function_level_imports():
    """The walk is not blind: imports at module level and inside functions are arrows."""
    module = PACKAGE / "core" / "conv" / "gram.py"
    assert {"ntkviz.core.conv._kernels", "ntkviz._check"} <= _imports(module)
    lazy = PACKAGE / "models" / "kernel_curves.py"
    assert "ntkviz.jobs" in _imports(lazy)  # ``from ntkviz.jobs import ...`` inside a method
