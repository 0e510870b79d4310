"""Layer boundaries: the numeric core, the jobs, the models and the CLI never import Qt,
and building the command-line parser (``--help``) loads neither numba, scipy nor Qt."""
import json
import subprocess
import sys

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
    """Every submodule of core, jobs, cli, models (walked with pkgutil) imports without Qt."""
    packages = ["ntkviz.core", "ntkviz.jobs", "ntkviz.cli", "ntkviz.models"]
    out = _run(WALK.format(packages=packages, qt=QT))
    assert out["qt"] == []
    imported = set(out["imported"])
    assert {"ntkviz.core.spectra.mercer", "ntkviz.jobs._curves", "ntkviz.cli._kernel",
            "ntkviz.cli._stability"} <= imported  # the walk really went into the packages
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
