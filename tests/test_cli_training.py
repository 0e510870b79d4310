"""``ntkviz export training``: CSV from the job (no Qt), PNG/SVG/GIF through the panel
offscreen (subprocess), one-line errors with exit code 2."""
from __future__ import annotations

import csv
import subprocess
import sys

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.jobs import TrainRequest

FAST = ["--steps", "300", "--frames", "12"]


def read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_metrics_csv_matches_the_job(tmp_path):
    out = tmp_path / "m.csv"
    assert main(["export", "training", *FAST, "--alpha", "0.5", "--compare-alpha", "20",
                 "--out", str(out)]) == 0
    header, rows = read_csv(out)
    resp = TrainRequest.from_state(dict(alpha=0.5, compare_alpha=20.0, steps=300, frames=12))()
    expected = resp.csv_table("metrics")
    assert header == expected[0]
    np.testing.assert_array_equal(np.array(rows, dtype=float), np.array(expected[1], dtype=float))


def test_frame_csv_and_bad_frame(tmp_path, capsys):
    out = tmp_path / "p.csv"
    assert main(["export", "training", *FAST, "--view", "predictor", "--frame", "0",
                 "--out", str(out)]) == 0
    header, rows = read_csv(out)
    assert header[3:5] == ["target", "net"]
    assert all(float(r[4]) == 0.0 for r in rows)  # f(w0) = 0 exactly
    assert main(["export", "training", *FAST, "--frame", "999", "--out", str(out)]) == 2
    assert "--frame must be in" in capsys.readouterr().err


@pytest.mark.parametrize("argv,match", [(["--width-m", "7"], "width must be even"),
                                        (["--lr", "0"], "lr"),
                                        (["--out-ext"], "--out must end")])
def test_errors_are_one_line(tmp_path, capsys, argv, match):
    out = tmp_path / ("x.txt" if argv == ["--out-ext"] else "x.csv")
    args = [] if argv == ["--out-ext"] else argv
    assert main(["export", "training", *FAST, *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and "\n" not in err


def test_png_svg_gif_exports(tmp_path):
    pytest.importorskip("PIL")
    code = (
        "import sys\n"
        "from ntkviz.cli import main\n"
        f"args = {FAST!r}\n"
        "for name in ('f.png', 'f.svg', 'a.gif'):\n"
        f"    assert main(['export', 'training', *args, '--compare-alpha', '30', '--width', '600',"
        f" '--out', r'{tmp_path}/' + name]) == 0\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
    from PIL import Image

    png = Image.open(tmp_path / "f.png")
    assert png.size[0] == 600
    assert (tmp_path / "f.svg").read_text().lstrip().startswith(("<?xml", "<svg"))
    gif = Image.open(tmp_path / "a.gif")
    assert gif.n_frames == len(TrainRequest.from_state(dict(steps=300, frames=12)).configs()[0].frame_steps())
