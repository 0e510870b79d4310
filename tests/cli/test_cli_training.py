"""``ntkviz export training``: the options fill the panel's model (no clamping, one-line
refusals naming the option), CSV from the job (no Qt), PNG/SVG/GIF through the panel
offscreen (subprocess)."""
from __future__ import annotations

import csv
import os
import subprocess
import sys

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.jobs import TrainRequest
from ntkviz.core.training.dynamics import TrainConfig

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
    config = TrainConfig(alpha=0.5, width=20, samples=15, teacher=3, lr=0.005, steps=300,
                         frames=12)
    expected = TrainRequest(config, 20.0)().csv_table("metrics")
    assert header == expected[0]
    np.testing.assert_array_equal(np.array(rows, dtype=float), np.array(expected[1], dtype=float))


def test_every_option_reaches_the_job_unclamped(tmp_path):
    """Values outside the GUI's old slider ranges are drawn as asked (α = 1e-4, m = 4096)."""
    out = tmp_path / "m.csv"
    assert main(["export", "training", "--steps", "20", "--frames", "3", "--alpha", "0.0001",
                 "--width-m", "4096", "--samples", "7", "--teacher", "5", "--dim", "3",
                 "--lr", "0.0002", "--seed", "4000000000", "--init", "centered",
                 "--ntk-scaling", "--linear-time", "--out", str(out)]) == 0
    header, rows = read_csv(out)
    config = TrainConfig(alpha=1e-4, width=4096, samples=7, teacher=5, dim=3, lr=2e-4, steps=20,
                         frames=3, seed=4_000_000_000, init="centered", ntk_scaling=True,
                         log_time=False)
    expected = TrainRequest(config, None)().csv_table("metrics")
    np.testing.assert_array_equal(np.array(rows, dtype=float), np.array(expected[1], dtype=float))
    assert [int(r[2]) for r in rows] == [0, 7, 13, 20]  # evenly spaced steps


def test_frame_csv_and_bad_frame(tmp_path, capsys):
    out = tmp_path / "p.csv"
    assert main(["export", "training", *FAST, "--view", "predictor", "--frame", "0",
                 "--out", str(out)]) == 0
    header, rows = read_csv(out)
    assert header[3:5] == ["target", "net"]
    assert all(float(r[4]) == 0.0 for r in rows)  # f(w0) = 0 exactly
    assert main(["export", "training", *FAST, "--frame", "999", "--out", str(out)]) == 2
    assert "--frame: frame must be in [-1, " in capsys.readouterr().err


@pytest.mark.parametrize("argv,match", [
    (["--width-m", "7"], "--width-m: width must be even"),
    (["--width-m", "0"], "--width-m: width must be in [2, 65536], got 0"),
    (["--lr", "0"], "--lr: lr must be in [1e-06, 1000], got 0"),
    (["--alpha", "1e7"], "--alpha: alpha must be in [0.0001, 1e+06]"),
    (["--compare-alpha", "0"], "--compare-alpha: alpha2 must be in [0.0001, 1e+06]"),
    (["--seed", "-1"], "--seed: seed must be in [0, 4294967295], got -1"),
    (["--init", "bogus"], "init must be one of symmetric, centered"),
    (["--metrics", "gap,,test_loss"], "--metrics must be names separated by single commas"),
    (["--metrics", "foo"], "--metrics: metrics must be among"),
    (["--view", "neurons_2"], "--view must be one of figure, neurons, predictor, metrics,"),
    (["--fps", "0"], "--fps must be in [1, 100], got 0"),
    (["--width", "3"], "--width must be in [16, 20000] pixels, got 3"),
    (["--out-ext"], "--out must end"),
])
def test_errors_are_one_line(tmp_path, capsys, argv, match):
    out = tmp_path / ("x.txt" if argv == ["--out-ext"] else "x.csv")
    args = [] if argv == ["--out-ext"] else argv
    assert main(["export", "training", *FAST, *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert match in err and "\n" not in err
    assert not out.exists()


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
    # glibc returning freed memory early made a GIF read a freed frame buffer (all frames
    # alike, merged into one by Pillow): run with that allocator setting on purpose
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, env=env)
    from PIL import Image

    png = Image.open(tmp_path / "f.png")
    assert png.size[0] == 600
    svg = (tmp_path / "f.svg").read_text()
    assert svg.lstrip().startswith(("<?xml", "<svg"))
    assert "(x0" not in svg and "(x1" not in svg  # no SI scale factor on any axis
    gif = Image.open(tmp_path / "a.gif")
    count = len(TrainConfig(steps=300, frames=12).frame_steps())
    assert gif.n_frames == count and gif.size[0] == 600
    assert abs(gif.info["duration"] - 1000 / 15) <= 10  # --fps default (GIF: centiseconds)
    assert not list(tmp_path.glob(".*part*"))  # atomic writes leave no temporary files


def test_the_shared_export_runner_writes_the_metrics_table(tmp_path):
    """``run_export`` (the CLI's common path) reads the training table from the request."""
    from ntkviz.cli._export import run_export

    out = tmp_path / "r.csv"
    run_export(out, "training", {"steps": 300, "frames": 12, "compare": False}, view="figure")
    header, rows = read_csv(out)
    config = TrainConfig(alpha=0.01, width=20, samples=15, teacher=3, lr=0.005, steps=300,
                         frames=12)
    expected = TrainRequest(config, None)().csv_table("metrics")
    assert header == expected[0] and len(rows) == len(expected[1])
