"""``ntkviz stability --view sets`` figures (.png/.svg through the Stability tab's panel, the
one export path) and ``ntkviz export stability --view sets``: what the files hold, the
options each figure takes, one-line refusals."""
from __future__ import annotations

import csv
from xml.dom import minidom

import numpy as np
import pytest

from ntkviz.cli import main

SETS = ["--view", "sets", "--sets", "deform:3,same", "--set-size", "3", "--sweep", "last-pooling:2,5"]


def test_png_and_svg_are_the_panels_figure(tmp_path, capsys):
    pytest.importorskip("PySide6")
    from PySide6 import QtGui

    png, svg = tmp_path / "fig1.png", tmp_path / "fig1.svg"
    assert main(["stability", *SETS, "--width", "900", "--out", str(png)]) == 0
    image = QtGui.QImage(str(png))
    assert image.width() == 900 and image.height() > 300
    err = capsys.readouterr().err
    assert "translation term" in err and "own smooth fields" in err and str(png) in err
    assert main(["stability", *SETS, "--out", str(svg)]) == 0
    texts = "".join(node.firstChild.data for node in minidom.parse(str(svg)).getElementsByTagName("text")
                    if node.firstChild is not None).replace("\xa0", " ")
    for words in ("CKN", "NTK", "deformations, α = 3", "last layer's pooling/subsampling factor",
                  "translation term"):
        assert words in texts, words


def test_export_view_sets_csv_is_the_request(tmp_path):
    from ntkviz.jobs import StabilitySetsRequest

    out = tmp_path / "fig1.csv"
    assert main(["export", "stability", "--view", "sets", "--sets", "deform:3,same", "--set-size", "3",
                 "--sweep", "patch:3,5", "--out", str(out)]) == 0
    rows = list(csv.reader(open(out)))
    want = StabilitySetsRequest(sets=("deform:3", "same"), set_size=3, sweep="patch", values=(3, 5))()
    header, expected = want.csv_table()
    assert rows[0] == header
    assert [r[:4] for r in rows[1:]] == [[str(c) for c in e[:4]] for e in expected]
    np.testing.assert_array_equal(np.array([r[4:] for r in rows[1:]], float),
                                  np.array([e[4:] for e in expected], float))


def test_fits_add_a_fit_column_along_the_amplitude(tmp_path):
    out = tmp_path / "fits.csv"
    assert main(["stability", "--view", "sets", "--sets", "deform:3,same", "--set-size", "3",
                 "--sweep", "amplitude:0.3,1,3", "--fits", "--out", str(out)]) == 0
    rows = list(csv.reader(open(out)))
    assert rows[0][-1] == "fit"
    fitted = {(r[0], r[1]) for r in rows[1:] if r[-1]}
    assert fitted == {("ckn", "deform"), ("ntk", "deform")}


@pytest.mark.parametrize("args, match", [
    (["stability", *SETS, "--width", "500", "--out", "F.svg"], "--width applies to a .png"),
    (["stability", "--view", "sets", "--fits", "--out", "F.csv"], "--fits applies to --sweep amplitude"),
    (["stability", "--view", "sets", "--model", "M.json", "--out", "F.png"], "--model must be a preset"),
    (["stability", "--view", "sets", "--out", "F.txt"], "--out must end in .csv or .png or .svg"),
    (["stability", "--width", "500", "--out", "F.csv"], "--width applies to --view sets only"),
    (["stability", "--view", "sets", "--maps", "ckn", "--out", "F.csv"], "--maps does not apply to --view sets"),
    (["export", "stability", "--view", "sets", "--family", "rotation", "--out", "F.csv"],
     "--family applies to the distance-against-amplitude figure"),
    (["export", "stability", "--reference-label", "3", "--out", "F.csv"], "--reference-label applies to --view sets"),
    (["export", "stability", "--view", "sets", "--fits", "--out", "F.csv"], "--fits applies to --view sets with"),
    (["export", "stability", "--view", "sets", "--sets", "deform:3,deform:3", "--out", "F.csv"], "twice"),
    (["export", "stability", "--view", "sets", "--sweep", "layers:0", "--out", "F.csv"], "in [1, 99], got 0"),
    (["export", "stability", "--view", "sets", "--set-size", "0", "--out", "F.csv"], "--set-size"),
])
def test_refusals_are_one_line(tmp_path, capsys, args, match):
    args = [a.replace("F.", str(tmp_path / "f.")) if a.startswith("F.") else a for a in args]
    args = [str(tmp_path / "m.json") if a == "M.json" else a for a in args]
    (tmp_path / "m.json").write_text('[{"npatch": 3, "subsampling": 2, "pooling": "gaussian", "kernel": "relu"}]')
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0], err
    assert not list(tmp_path.glob("f.*"))
