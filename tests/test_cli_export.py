"""``ntkviz export {kernel,spectrum}``: CSV from the request, PNG/SVG from the panel."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from xml.etree import ElementTree

import pytest

from ntkviz.jobs import KernelCurveRequest, SpectrumRequest


def ntkviz(*args, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "ntkviz", *args], env=env, capture_output=True,
                          text=True, timeout=180, cwd=tmp_path)


def read_csv(path):
    with open(path) as fh:
        return list(csv.reader(fh))


def test_kernel_csv_matches_request_and_imports_no_qt(tmp_path):
    out = tmp_path / "k.csv"
    code = ("import sys; from ntkviz.cli import main\n"
            f"rc = main(['export', 'kernel', '--kernels', 'ntk,nngp', '--depth', '3', '--depths',"
            f" '5', '--points', '21', '--derivative', '--out', {str(out)!r}])\n"
            "assert rc == 0, rc\n"
            "assert not [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))]\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=180)
    rows = read_csv(out)
    state = {"kernels": ["ntk", "nngp"], "depth": 3, "extra_depths": "5", "n_points": 21,
             "derivative": True}
    header, expected = KernelCurveRequest.from_state(state)().csv_table("curves")
    assert rows[0] == header
    assert len(rows) == 22
    got = [[float(v) for v in r] for r in rows[1:]]
    assert got == expected


def test_spectrum_csv_matches_request(tmp_path):
    proc = ntkviz("export", "spectrum", "--kernels", "ntk", "--dim", "5", "--kmax", "30",
                  "--weighted", "--out", "s.csv", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = read_csv(tmp_path / "s.csv")
    header, expected = SpectrumRequest.from_state(
        {"kernels": ["ntk"], "dim": 5, "kmax": 30, "weighted": True})().csv_table("spectrum")
    assert rows[0] == header and len(rows) == 32
    assert [float(r[6]) for r in rows[1:]] == [e[6] for e in expected]
    assert [r[7] for r in rows[1:]] == [e[7] for e in expected]


def test_kernel_png_and_svg_match_gui_rendering(tmp_path):
    from PySide6 import QtGui

    proc = ntkviz("export", "kernel", "--view", "near_one", "--out", "k.png", "--width", "700",
                  tmp_path=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    image = QtGui.QImage(str(tmp_path / "k.png"))
    assert image.width() == 700 and image.height() > 200
    proc = ntkviz("export", "spectrum", "--view", "slope", "--out", "s.svg", tmp_path=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    root = ElementTree.parse(tmp_path / "s.svg").getroot()
    assert root.tag.endswith("svg")
    assert "Local slope" in (tmp_path / "s.svg").read_text()


@pytest.mark.parametrize("args, match", [
    (["export", "kernel", "--depth", "99", "--out", "x.csv"], "depth must be in [2, 50]"),
    (["export", "kernel", "--out", "x.txt"], "--out must end in one of"),
    (["export", "spectrum", "--dim", "1", "--out", "x.csv"], "dim must be in [2, 1000]"),
    (["export", "kernel", "--kernels", "rbf", "--out", "x.csv"], "kernels must be among"),
])
def test_bad_arguments_one_line_exit_2(tmp_path, args, match):
    proc = ntkviz(*args, tmp_path=tmp_path)
    assert proc.returncode == 2
    assert match in proc.stderr and proc.stderr.count("\n") == 1
