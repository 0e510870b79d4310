"""``ntkviz export {kernel,spectrum}``: the options fill the panels' models; CSV from the
model's request, PNG/SVG drawn by the panel from the same values."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from xml.etree import ElementTree

import numpy as np
import pytest

from ntkviz.models.kernel_curves import KernelCurvesModel
from ntkviz.models.spectrum import SpectrumModel


def ntkviz(*args, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "ntkviz", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)


def read_csv(path):
    with open(path) as fh:
        return list(csv.reader(fh))


def expected_table(model_cls, state, view):
    params = model_cls.parse(state)
    return model_cls.csv_table(params, model_cls.build_request(params)(), view)


def test_kernel_csv_matches_model_request_and_imports_no_qt(tmp_path):
    out = tmp_path / "k.csv"
    code = ("import sys; from ntkviz.cli import main\n"
            f"rc = main(['export', 'kernel', '--kernels', 'ntk,nngp', '--depth', '3', '--depths',"
            f" '5', '--points', '21', '--derivative', '--bias', '0.12345',"
            f" '--out', {str(out)!r}])\n"
            "assert rc == 0, rc\n"
            "assert not [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))]\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=180)
    rows = read_csv(out)
    header, expected = expected_table(KernelCurvesModel, {
        "kernels": ["ntk", "nngp"], "depth": 3, "extra_depths": [5], "n_points": 21,
        "derivative": True, "bias": 0.12345}, "curves")
    assert rows[0] == header and "NTK L=5 (relu) β=0.12345" in header
    assert len(rows) == 22
    assert [[float(v) for v in r] for r in rows[1:]] == expected


def test_spectrum_csv_matches_model_request(tmp_path):
    proc = ntkviz("export", "spectrum", "--kernels", "ntk", "--dim", "5", "--kmax", "30",
                  "--weighted", "--out", "s.csv", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = read_csv(tmp_path / "s.csv")
    header, expected = expected_table(
        SpectrumModel, {"kernels": ["ntk"], "dim": 5, "kmax": 30, "weighted": True}, "spectrum")
    assert rows[0] == header and len(rows) == 32
    col = header.index("y_plotted")
    assert [float(r[col]) for r in rows[1:]] == [e[col] for e in expected]
    from ntkviz.core import KernelSpec, mercer_spectrum, multiplicity

    sp = mercer_spectrum(KernelSpec("ntk"), 5, 30)  # weighted: N(p, k) μ_k
    np.testing.assert_allclose([float(r[col]) for r in rows[1:]],
                               multiplicity(5, sp.k) * sp.mu, rtol=1e-13)
    assert [r[header.index("status")] for r in rows[1:]] == [e[header.index("status")]
                                                             for e in expected]


def test_net_width_1_is_the_same_request_for_csv_and_png(tmp_path):
    from PySide6 import QtGui

    for name in ("w.csv", "w.png"):
        proc = ntkviz("export", "kernel", "--kernels", "ntk", "--net-width", "1", "--samples", "2",
                      "--out", name, tmp_path=tmp_path)
        assert proc.returncode == 0, proc.stderr
    header = read_csv(tmp_path / "w.csv")[0]
    assert "empirical NTK m=1 mean" in header
    assert QtGui.QImage(str(tmp_path / "w.png")).width() > 100


def test_figures_draw_the_exact_parameters_and_no_scale_factor(tmp_path):
    proc = ntkviz("export", "kernel", "--bias", "0.12345", "--depths", "3", "--out", "k.svg",
                  tmp_path=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    text = (tmp_path / "k.svg").read_text()
    assert "β=0.12345" in text and "β=0.123 " not in text
    proc = ntkviz("export", "spectrum", "--kernels", "ntk,arccos1", "--dim", "20",
                  "--out", "s.svg", tmp_path=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    text = (tmp_path / "s.svg").read_text()
    assert "x1e" not in text


def test_kernel_png_and_spectrum_svg(tmp_path):
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
    (["export", "kernel", "--depth", "99", "--out", "x.csv"], "--depth: depth must be in [2, 50]"),
    (["export", "kernel", "--out", "x.txt"], "--out must end in"),
    (["export", "spectrum", "--dim", "1", "--out", "x.csv"], "--dim: dim must be in [2, 1000]"),
    (["export", "spectrum", "--kmax", "0", "--out", "x.csv"], "--kmax: kmax must be in [1, 2000]"),
    (["export", "spectrum", "--bias", "2.5e2", "--out", "x.csv"],
     "--bias: bias must be in [0, 100]"),
    (["export", "kernel", "--kernels", "rbf", "--out", "x.csv"], "kernels must be among"),
    (["export", "kernel", "--kernels", "ntk,ntk", "--out", "x.csv"], "must not repeat a name"),
    (["export", "kernel", "--kernels", "ntk,,nngp", "--out", "x.csv"], "single commas"),
    (["export", "kernel", "--depths", ",", "--out", "x.csv"], "--depths must be integers"),
    (["export", "kernel", "--net-width", "0", "--out", "x.csv"],
     "--net-width: width must be in [1, 65536], got 0"),
    (["export", "kernel", "--net-width", "0", "--out", "x.png"],
     "--net-width: width must be in [1, 65536], got 0"),
    (["export", "kernel", "--kernels", "arccos0", "--activation", "tanh", "--out", "x.csv"],
     "--activation applies to ntk and nngp only"),
    (["export", "kernel", "--samples", "3", "--out", "x.csv"], "--samples applies to the "
                                                               "finite-width overlay only"),
])
def test_bad_arguments_one_line_exit_2(tmp_path, args, match):
    proc = ntkviz(*args, tmp_path=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert match in proc.stderr and proc.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("view", ["kernel", "spectrum", "stability", "deform", "training"])
@pytest.mark.parametrize("width", ["0", "15", "20001"])
def test_width_refused_naming_the_option_with_one_range(tmp_path, view, width):
    """Every export command refuses --width outside limits.EXPORT_WIDTH_RANGE in the same
    words, naming the option (the renderer's own size check uses the same range)."""
    from ntkviz import limits
    from ntkviz.gui import export as exporter

    assert exporter.SIZE_RANGE == limits.EXPORT_WIDTH_RANGE
    lo, hi = limits.EXPORT_WIDTH_RANGE
    args = ["export", view, "--width", width, "--out", "x.png"]
    match = f"--width must be in [{lo}, {hi}] pixels, got {width}"
    proc = ntkviz(*args, tmp_path=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert match in proc.stderr and proc.stderr.count("\n") == 1
    assert not list(tmp_path.iterdir())  # nothing written


def test_failed_png_write_is_one_line_and_writes_nothing(tmp_path):
    """A PNG write that fails midway (file size limit) is refused in one line, with
    libpng's own stderr line folded into it, and leaves no file behind."""
    (tmp_path / "out").mkdir()
    code = ("import resource, sys\n"
            "from ntkviz.cli import main\n"
            "assert main(['export', 'kernel', '--out', 'warm.png']) == 0\n"  # caches written
            "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, resource.RLIM_INFINITY))\n"
            "sys.exit(main(['export', 'kernel', '--width', '2400', '--out', 'out/k.png']))\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "libpng" not in proc.stderr, proc.stderr
    assert "k.png: cannot write the PNG image" in proc.stderr
    assert not list((tmp_path / "out").iterdir())
