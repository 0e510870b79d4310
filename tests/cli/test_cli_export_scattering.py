"""``ntkviz export scattering`` (generated from the Scattering tab's model) and
``ntkviz export deformation --image gabor:omega0=W``: CSV equals the core, PNG through the
panels, one-line errors."""
from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from ntkviz.cli import main


def read(path):
    with open(path) as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_coefficients_csv_equals_the_transform(tmp_path):
    from ntkviz.core.deformations.digits import digit_image
    from ntkviz.core.scattering.transform import ScatteringParams, scattering_transform

    out = tmp_path / "c.csv"
    assert main(["export", "scattering", "--label", "5", "--index", "2", "--J", "3", "--L", "6",
                 "--order", "1", "--padding", "reflect", "--view", "coefficients",
                 "--out", str(out)]) == 0
    header, rows = read(out)
    S = scattering_transform(digit_image(5, 2), ScatteringParams(J=3, L=6, order=1, padding="reflect"))
    assert header == ["order", "j1", "l1", "j2", "l2", "row", "col", "value"]
    got = np.array([float(r[-1]) for r in rows]).reshape(S.shape)
    np.testing.assert_array_equal(got, S)


def test_counterexample_csv_of_the_probe_options(tmp_path):
    out = tmp_path / "w.csv"
    assert main(["export", "scattering", "--omega0s", "pi/4,pi/2,pi", "--dilations", "0.01,0.05,2",
                 "--view", "omega0", "--out", str(out)]) == 0
    header, rows = read(out)
    assert header[:2] == ["omega0_rad_per_px", "dilation_s"]
    assert [float(r[0]) for r in rows] == [math.pi / 4, math.pi / 2, math.pi]
    assert {float(r[1]) for r in rows} == {0.05}


def test_pngs_are_rendered_by_the_panel(tmp_path):
    from PySide6 import QtGui

    for view in ("frequency", "order2"):
        out = tmp_path / f"{view}.png"
        assert main(["export", "scattering", "--image", "gabor:omega0=pi/2", "--J", "3",
                     "--view", view, "--out", str(out), "--width", "640"]) == 0
        assert QtGui.QImage(str(out)).width() == 640


@pytest.mark.parametrize("extra, words", [
    (["--J", "5"], "--J: scattering J = 5 needs image sides >= 2^J = 32"),
    (["--order", "1", "--view", "order2"], "--view must be one of"),
    (["--image", "gabor:omega0=pi/2", "--label", "3"], "--label applies to a bundled digit only"),
    (["--omega0s", "pi/4,,pi"], "--omega0s must be numbers separated by commas"),
    (["--dilations", "0.05,0.01"], "dilation_min must be < dilation_max"),
    (["--image", "gabor:omega0=9"], "--image: gabor_omega0 must be in"),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, extra, words):
    assert main(["export", "scattering", *extra, "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_deformation_export_of_the_gabor_probe(tmp_path):
    from PySide6 import QtGui

    from ntkviz.core.deformations.deform import Deformation
    from ntkviz.core.deformations.probes import deform_gabor

    csv_out = tmp_path / "x.csv"
    assert main(["export", "deformation", "--image", "gabor:omega0=1.57", "--dilation", "0.05",
                 "--out", str(csv_out)]) == 0
    header, rows = read(csv_out)
    want, _ = deform_gabor(Deformation(scale=1 / 0.95), (28, 28), 1.57)
    np.testing.assert_array_equal(np.array([float(r[2]) for r in rows]).reshape(28, 28), want)
    png = tmp_path / "x.png"
    assert main(["export", "deformation", "--image", "gabor:omega0=1.57", "--out", str(png)]) == 0
    assert QtGui.QImage(str(png)).width() == 800
    context = tmp_path / "c.csv"
    assert main(["export", "deformation", "--image", "gabor:omega0=1.57", "--dilation", "0.05",
                 "--maps", "scattering,fourier", "--view", "context", "--out", str(context)]) == 0
    _, rows = read(context)
    assert {(r[0], r[1]) for r in rows} == {("deformation", "scattering"), ("deformation", "fourier")}


def test_deformation_export_refuses_a_bad_probe(tmp_path, capsys):
    assert main(["export", "deformation", "--image", "gabor:omega0=fast",
                 "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--image gabor:omega0 must be a number of radians per pixel" in err and "\n" not in err


def test_the_scattering_tab_is_a_gui_tab_and_an_export(capsys):
    from ntkviz.models.scattering import ScatteringModel

    with pytest.raises(SystemExit):
        main(["export", "scattering", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "{" + ",".join(ScatteringModel.view_names()) + "}" in text
    assert main(["gui", "--tab", "scatter"]) == 2
    err = capsys.readouterr().err
    assert "--tab must be one of" in err and "learning, scattering" in err
