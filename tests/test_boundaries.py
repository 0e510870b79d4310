"""The numeric core, the jobs layer and the CLI must not import Qt."""
import subprocess
import sys

import pytest

CHECK = (
    "import sys, {mods}\n"
    "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))\n"
    "assert not bad, bad\n"
)


@pytest.mark.parametrize("mods", ["ntkviz", "ntkviz.core", "ntkviz.jobs", "ntkviz.cli"])
def test_no_qt_import(mods):
    subprocess.run([sys.executable, "-c", CHECK.format(mods=mods)], check=True)


def test_cli_help_pulls_no_qt():
    code = (
        "import sys, contextlib, io\n"
        "from ntkviz.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
