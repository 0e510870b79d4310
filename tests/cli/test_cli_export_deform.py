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
    from ntkviz.core.deformations.deform import Deformation, deform_image
    from ntkviz.core.deformations.digits import digit_image

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
    from ntkviz.core.deformations.deform import Deformation, displacement_field

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


def test_views_are_the_editor_views(capsys):
    """``--view`` offers exactly the model's views (the editor's exportable views)."""
    from ntkviz.models.deformation import DeformationModel

    with pytest.raises(SystemExit):
        main(["export", "deformation", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "{" + ",".join(DeformationModel.view_names()) + "}" in text


def test_the_earlier_command_name_still_works(tmp_path):
    out = tmp_path / "d.csv"
    assert main(["export", "deform", "--label", "4", "--view", "original", "--out", str(out)]) == 0
    assert main(["export", "deformation", "--label", "4", "--view", "original",
                 "--out", str(tmp_path / "e.csv")]) == 0
    assert out.read_text() == (tmp_path / "e.csv").read_text()


def test_rotation_90_is_drawn_not_clamped(tmp_path):
    """The figure draws the value asked (the CSV always did)."""
    from PySide6 import QtGui

    paths = {}
    for angle in ("45", "90"):
        paths[angle] = tmp_path / f"r{angle}.png"
        assert main(["export", "deform", "--label", "1", "--rotation", angle,
                     "--out", str(paths[angle])]) == 0
    assert paths["45"].read_bytes() != paths["90"].read_bytes()
    img = QtGui.QImage(str(paths["90"]))
    assert img.width() == 800 and 0.5 * 800 <= img.height() <= 800  # not 229×327


@pytest.mark.parametrize("extra, words", [
    (["--rotation", "400"], r"--rotation: rotation_deg must be in \[-360, 360\], got 400"),
    (["--translate-x", "2000"], r"--translate-x: translate_x must be in \[-1000, 1000\]"),
    (["--shear", "11"], r"--shear: shear must be in \[-10, 10\]"),
])
def test_beyond_the_range_is_refused_naming_the_option(tmp_path, capsys, extra, words):
    import re

    assert main(["export", "deform", *extra, "--out", str(tmp_path / "x.png")]) == 2
    assert re.search(words, capsys.readouterr().err)
    assert not (tmp_path / "x.png").exists()


def test_context_of_a_one_pixel_image_has_no_nan(tmp_path):
    one = tmp_path / "one.npy"
    np.save(one, np.full((1, 1), 0.5))  # a 1×1 image: a uniform 28×28 square
    out = tmp_path / "c.csv"
    assert main(["export", "deform", "--image", str(one), "--view", "context", "--out", str(out)]) == 0
    header, rows = read(out)
    assert header == ["category", "map", "relative_distance"]
    assert rows and not any(r[2] == "nan" for r in rows)


@pytest.mark.parametrize("content, words", [
    (np.zeros((1, 1)), "one.npy: the image is blank"),
    (np.zeros((4, 28, 28)), r"shape \(4, 28, 28\) is not one image"),
])
def test_blank_or_stacked_images_are_refused(tmp_path, capsys, content, words):
    import re

    np.save(tmp_path / "one.npy", content)
    assert main(["export", "deform", "--image", str(tmp_path / "one.npy"), "--view", "context",
                 "--out", str(tmp_path / "c.csv")]) == 2
    assert re.search(words, capsys.readouterr().err)


def test_a_folder_is_not_called_a_missing_file(tmp_path, capsys):
    assert main(["export", "deform", "--image", str(tmp_path), "--out", str(tmp_path / "c.csv")]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err
