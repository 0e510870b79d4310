"""``ntkviz lazy-sweep``: the measured laws of lazy training, read from the CSV it writes.

* α-sweep (defaults: 13 α from 1e-2 to 1e4, m = 20, n = 15, 3 seeds, NTK scaling, t = 50):
  for α ≥ 10, ‖w − w₀‖/‖w₀‖ ∝ α⁻¹ and κ_α ∝ α⁻¹ (Chizat, Oyallon & Bach 2019, Thm 2.2), and the
  net's test loss equals its linearisation's at the lazy end;
* width sweep at α = 1: ‖w − w₀‖/‖w₀‖ ∝ m^{-1/2} under the NTK scaling, flat under mean field;
* random features (last layer, ridge 1e-8, label noise 0.1, d = 10, n = 100): the double-descent
  peak at m = n, and at m = 32n kernel ridge regression with the arc-cosine kernel κ1 — the
  limit of Φ Φᵀ for ReLU features of a bias-free N(0, I) first layer on the sphere,
  E σ(b·x)σ(b·x') = κ1(x·x')/2 — computed here from its closed form on the same data.
"""
from __future__ import annotations

import csv

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.training._reference import ref_kappa1, ref_kernel_ridge
from ntkviz.core.training.dynamics import TrainConfig, make_setup
from ntkviz.core.training.sweep import loglog_slope


def run_cli(args, path, capsys):
    try:
        code = main(["lazy-sweep", *args, "--out", str(path)])
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def read(path) -> list[dict]:
    return list(csv.DictReader(path.open()))


def column(rows, name) -> np.ndarray:
    return np.array([float(r[name]) for r in rows])


@pytest.fixture(scope="module")
def alpha_sweep(tmp_path_factory):
    path = tmp_path_factory.mktemp("sweep") / "alpha.csv"
    try:
        assert main(["lazy-sweep", "--out", str(path)]) == 0
    except SystemExit as exc:  # pragma: no cover - argparse
        raise AssertionError(exc.code)
    return read(path)


def test_alpha_sweep_laws(alpha_sweep):
    rows = alpha_sweep
    assert len(rows) == 13 and all(r["runs"] == "3" and r["scaling"] == "ntk" for r in rows)
    alpha = column(rows, "alpha")
    lazy = alpha >= 10
    assert lazy.sum() == 7
    assert abs(loglog_slope(alpha[lazy], column(rows, "displacement")[lazy]) + 1) <= 0.05
    assert abs(loglog_slope(alpha[lazy], column(rows, "kappa_alpha")[lazy]) + 1) <= 0.1
    net, lin = column(rows, "test_loss_net"), column(rows, "test_loss_linear")
    assert abs(net[-1] - lin[-1]) <= 0.01 * lin[-1]  # the lazy end: the net is its linearisation
    assert abs(net[0] - lin[0]) > 0.1 * lin[0]  # the rich end: it is not
    star = float(rows[0]["alpha_star"])  # where they separate by 10 %, inside the grid
    assert alpha[0] < star < alpha[-1] and len({r["alpha_star"] for r in rows}) == 1
    gap = np.abs(net - lin) / lin
    assert np.all(gap[alpha > star * 3.2] < 0.1)  # the next grid point above α* and beyond: lazy
    for name in ("test_loss_net", "displacement", "kappa_alpha"):
        assert np.all(column(rows, f"{name}_sem") >= 0)


@pytest.mark.parametrize("scaling,expected,tol", [("ntk", -0.5, 0.1), ("meanfield", 0.0, 0.15)])
def test_width_sweep_displacement(scaling, expected, tol, tmp_path, capsys):
    path = tmp_path / "width.csv"
    code, err = run_cli(["--alphas", "1", "--widths", "100,1000,10000", "--scaling", scaling,
                         "--lr", "0.05", "--steps", "200"], path, capsys)
    assert code == 0, err
    rows = read(path)
    widths, disp = column(rows, "width"), column(rows, "displacement")
    assert abs(loglog_slope(widths, disp) - expected) <= tol, disp
    if scaling == "meanfield":
        assert "lr·m" in err


def _kernel_ridge_test_loss(seed: int, dim: int) -> float:
    """Kernel ridge regression, ridge 1e-8, kernel (m s²/2) κ1 = κ1/2 (NTK scaling), on the data
    the sweep draws for ``seed`` (teacher, inputs, noisy targets do not depend on the width)."""
    setup = make_setup(TrainConfig(width=2, samples=100, dim=dim, seed=seed, noise=0.1, layers="last",
                                   init="centered", ntk_scaling=True))
    X, Xt = setup.X_train, setup.X_eval[setup.test]
    pred = ref_kernel_ridge(0.5 * ref_kappa1(X @ X.T), 0.5 * ref_kappa1(Xt @ X.T), setup.y_train, 1e-8)
    return 0.5 * float(np.mean((pred - setup.y_eval[setup.test]) ** 2))


def test_double_descent_and_its_kernel_limit(tmp_path, capsys):
    path = tmp_path / "dd.csv"
    code, err = run_cli(["--alphas", "1", "--widths", "25,100,800,3200", "--train", "last", "--ridge",
                         "1e-8", "--noise", "0.1", "--dim", "10", "--samples", "100"], path, capsys)
    assert code == 0, err
    rows = read(path)
    loss = dict(zip(column(rows, "width").astype(int), column(rows, "test_loss_net")))
    assert loss[100] >= 2 * loss[25] and loss[100] >= 2 * loss[800]  # the peak at m = n
    krr = np.mean([_kernel_ridge_test_loss(seed, 10) for seed in range(3)])
    assert column(rows, "test_loss_kernel") == pytest.approx(krr, rel=1e-6)
    assert abs(loss[3200] - krr) <= 0.1 * krr  # m = 32 n: within 10 % of the kernel limit
    assert all(r["test_loss_linear"] == "" and r["kappa_alpha"] == "0.0" for r in rows)
    assert all(r["ridge"] == "1e-08" and r["samples"] == "100" for r in rows)


def test_no_peak_on_the_circle_and_the_note_says_why(tmp_path, capsys):
    path = tmp_path / "circle.csv"
    code, err = run_cli(["--alphas", "1", "--widths", "25,100,800", "--train", "last", "--ridge", "1e-8",
                         "--noise", "0.1", "--dim", "2", "--samples", "100"], path, capsys)
    assert code == 0, err
    loss = dict(zip(column(read(path), "width").astype(int), column(read(path), "test_loss_net")))
    assert not (loss[100] >= 2 * loss[25] and loss[100] >= 2 * loss[800])
    assert "no double-descent peak" in err and "even ones" in err


def test_ctrl_c_writes_the_finished_rows(tmp_path, capsys, monkeypatch):
    from ntkviz.core.training import sweep

    calls = {"n": 0}
    measure = sweep.measure

    def interrupted(config, prepared):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return (yield from measure(config, prepared))

    monkeypatch.setattr(sweep, "measure", interrupted)
    path = tmp_path / "partial.csv"
    code, err = run_cli(["--alphas", "1,10,100", "--seeds", "2", "--steps", "100"], path, capsys)
    assert code == 130
    assert err.strip().splitlines()[-1] == (f"ntkviz lazy-sweep: interrupted after 4 of 6 runs; wrote 2 "
                                            f"rows to {path}")
    rows = read(path)
    assert [r["alpha"] for r in rows] == ["1.0", "10.0"] and [r["runs"] for r in rows] == ["2", "2"]


@pytest.mark.parametrize("args,needle", [
    (["--alphas", "1,,2"], "--alphas must be numbers separated by commas"),
    (["--alphas", "0"], "--alphas must be in [0.0001, 1e+06]"),
    (["--alphas", "1,1"], "twice"),
    (["--widths", "25"], "widths must be even"),
    (["--widths", "0"], "--widths must be in [2, 65536]"),
    (["--ridge", "1e-3"], "--ridge applies to --train last only"),
    (["--ridge", "-1", "--train", "last"], "--ridge"),
    (["--scaling", "mup"], "--scaling"),
    (["--seeds", "0"], "--seeds"),
    (["--lr", "0"], "--lr: must be in"),
])
def test_bad_input_is_one_line_exit_2(args, needle, tmp_path, capsys):
    code, err = run_cli(args, tmp_path / "x.csv", capsys)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.csv").exists()


def test_png_and_svg_draw_the_tab_sweep_figure(tmp_path, capsys):
    """A .png/.svg is the tab's sweep figure of the very sweep a .csv would hold: the view is
    chosen from the grid (or --view), the image has the width asked, the SVG names its axes in
    true values (no SI scale factor)."""
    pytest.importorskip("PIL")
    from PIL import Image

    small = ["--alphas", "0.1,10", "--widths", "8", "--samples", "6", "--steps", "100",
             "--seeds", "2"]
    code, err = run_cli([*small, "--width", "640"], tmp_path / "a.png", capsys)
    assert code == 0, err
    assert "wrote the alpha figure" in err.strip().splitlines()[-1]
    assert Image.open(tmp_path / "a.png").size[0] == 640
    code, err = run_cli(["--alphas", "1", "--widths", "8,16", *small[4:], "--train", "last",
                         "--ridge", "0"], tmp_path / "dd.svg", capsys)
    assert code == 0 and "wrote the double_descent figure" in err, err
    svg = (tmp_path / "dd.svg").read_text()
    assert svg.lstrip().startswith(("<?xml", "<svg")) and "m/n" in svg and "(x0" not in svg
    code, err = run_cli([*small, "--view", "width"], tmp_path / "w.svg", capsys)
    assert code == 0, err
    assert "one width (m = 8)" in (tmp_path / "w.svg").read_text()  # says why there is no curve
    assert not list(tmp_path.glob(".*part*"))  # atomic writes leave no temporary files


@pytest.mark.parametrize("args", [["--view", "alpha"], ["--width", "640"], ["--dpi", "150"]])
def test_figure_options_need_a_figure(args, tmp_path, capsys):
    code, err = run_cli(["--alphas", "1", *args], tmp_path / "x.csv", capsys)
    assert code == 2 and "applies to a .png, .svg or .pdf figure" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "x.csv").exists()
