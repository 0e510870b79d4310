"""``ntkviz export stability``: CSV from the core sweep, PNG through the panel, errors."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from ntkviz.cli import main

ARGS = ["export", "stability", "--digits", "0,100", "--amplitudes", "0.1,1,2", "--seeds", "1",
        "--references", "2"]


def test_csv_equals_the_core_sweep(tmp_path, capsys):
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.deformations.digits import load_digits
    from ntkviz.core.deformations.stability import stability_sweep

    out = tmp_path / "s.csv"
    assert main(ARGS + ["--out", str(out)]) == 0
    with open(out) as fh:
        rows = list(csv.reader(fh))
    images, labels = load_digits()
    refs = np.concatenate([np.flatnonzero(labels == k)[:2] for k in range(10)])
    item = None
    for item in stability_sweep(images[[0, 100]] / 255.0, labels[[0, 100]].astype(int),
                                PRESETS["M1"], "smooth", np.geomspace(0.1, 1, 2), (0,),
                                reference_images=images[refs] / 255.0,
                                reference_labels=labels[refs].astype(int)):
        pass
    header, want = item.result.to_csv_rows()
    assert rows[0] == list(header)
    assert len(rows) - 1 == len(want)
    for got, exp in zip(rows[1:], want):
        for g, e in zip(got, exp):
            if isinstance(e, float):
                np.testing.assert_array_equal(float(g), e)
            else:
                assert g == str(e)


def test_png_is_rendered_by_the_panel(tmp_path):
    pytest.importorskip("PySide6")
    from PySide6 import QtGui

    out = tmp_path / "s.png"
    assert main(ARGS + ["--out", str(out), "--width", "700"]) == 0
    assert QtGui.QImage(str(out)).width() == 700


@pytest.mark.parametrize("extra, words", [
    (["--family", "warp"], "family"),
    (["--amplitudes", "1,2,3,4"], "--amplitudes"),
    (["--arch", "M9"], "architecture"),
    (["--digits", "0,x"], "digits"),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, extra, words):
    assert main(ARGS + extra + ["--out", str(tmp_path / "s.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_bad_suffix(tmp_path, capsys):
    assert main(ARGS + ["--out", str(tmp_path / "s.txt")]) == 2
    assert "--out" in capsys.readouterr().err


def test_no_same_label_reference_is_refused_not_nan(tmp_path, capsys):
    """Digit 0 is its label's only reference with --references 1 (and a digit is
    never compared with itself): refused with the reason, instead of NaN levels."""
    out = tmp_path / "s.csv"
    assert main(["export", "stability", "--digits", "0", "--references", "1", "--amplitudes",
                 "0.1,1,2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--references: reference_per_class must be >= 2 for digits 0" in err
    assert not out.exists()
    assert main(["export", "stability", "--digits", "0", "--references", "2", "--amplitudes",
                 "0.1,1,2", "--out", str(out)]) == 0
    with open(out) as fh:
        rows = list(csv.reader(fh))
    assert not any(v == "nan" for row in rows[1:] for v in row)


def test_amplitudes_to_500_are_computed_to_500(tmp_path):
    out = tmp_path / "s.csv"
    assert main(["export", "stability", "--digits", "0,100", "--references", "2", "--amplitudes",
                 "1,500,2", "--out", str(out)]) == 0
    with open(out) as fh:
        rows = list(csv.reader(fh))
    assert [float(r[0]) for r in rows[1:]] == [1.0, 500.0]
    assert main(["export", "stability", "--amplitudes", "1,1001,2", "--out", str(out)]) == 2
