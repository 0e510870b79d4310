"""``ntkviz export deform``: CSV from the jobs equals the core, PNG through the panel, errors."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from ntkviz.cli import main


def read(path):
    with open(path) as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_deformed_csv_equals_the_core(tmp_path):
    from ntkviz.core.deform import Deformation, deform_image
    from ntkviz.core.digits import digit_image

    out = tmp_path / "d.csv"
    assert main(["export", "deform", "--label", "4", "--index", "2", "--rotation", "12",
                 "--smooth", "0.5", "--smooth-seed", "3", "--view", "deformed", "--out", str(out)]) == 0
    header, rows = read(out)
    want, _ = deform_image(digit_image(4, 2), Deformation(rotation_deg=12.0, smooth_amplitude=0.5,
                                                          smooth_seed=3))
    assert header == ["row", "col", "value"]
    got = np.array([float(r[2]) for r in rows]).reshape(28, 28)
    np.testing.assert_array_equal(got, want)


def test_displacement_csv(tmp_path):
    from ntkviz.core.deform import Deformation, displacement_field

    out = tmp_path / "t.csv"
    assert main(["export", "deform", "--translate-x", "1.5", "--shear", "0.2",
                 "--view", "displacement", "--out", str(out)]) == 0
    header, rows = read(out)
    assert header == ["row", "col", "tau_down_px", "tau_right_px"]
    tau = np.array([[float(v) for v in r[2:]] for r in rows]).T.reshape(2, 28, 28)
    np.testing.assert_allclose(tau, displacement_field(Deformation(translate_x=1.5, shear=0.2),
                                                       (28, 28)), rtol=0, atol=1e-15)


def test_png_is_rendered_by_the_panel(tmp_path):
    from PySide6 import QtGui

    out = tmp_path / "d.png"
    assert main(["export", "deform", "--translate-x", "2", "--view", "difference",
                 "--out", str(out), "--width", "500"]) == 0
    assert QtGui.QImage(str(out)).width() == 500


@pytest.mark.parametrize("content, words", [(np.full((28, 28), np.nan), "NaN"),
                                            (np.zeros(5), "shape")])
def test_bad_user_image_is_a_one_line_error(tmp_path, capsys, content, words):
    bad = tmp_path / "bad.npy"
    np.save(bad, content)
    assert main(["export", "deform", "--image", str(bad), "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "bad.npy" in err and "\n" not in err


@pytest.mark.parametrize("extra, words", [(["--arch", "M9"], "preset"),
                                          (["--label", "12"], "label"),
                                          (["--scale", "0"], "scale")])
def test_bad_options(tmp_path, capsys, extra, words):
    assert main(["export", "deform", *extra, "--out", str(tmp_path / "x.csv")]) == 2
    assert words in capsys.readouterr().err


def test_views_are_the_editor_views():
    from ntkviz.cli._export_deform import VIEWS
    from ntkviz.jobs import DEFORM_VIEWS

    assert VIEWS == DEFORM_VIEWS
