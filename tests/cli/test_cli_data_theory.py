"""``ntkviz gram-spectrum`` and ``ntkviz data-theory``: files in, CSV out, one-line errors."""
import csv
import json

import numpy as np
import pytest

from ntkviz.cli import main

MODEL = [{"npatch": 3, "subsampling": 2}]  # a cheap one-layer architecture for 8x8 images


@pytest.fixture
def store(tmp_path):
    """A tiled NTK Gram store of 12 random 8x8 images (tiles of 5: a 3 x 3 grid) and their labels."""
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "x.npz", images=rng.random((12, 8, 8)), labels=np.arange(12) % 3)
    (tmp_path / "m.json").write_text(json.dumps(MODEL))
    assert main(["gram", "--model", str(tmp_path / "m.json"), "--images", str(tmp_path / "x.npz"),
                 "--mode", "ntk", "--out", str(tmp_path / "K.zarr"), "--tile-size", "5"]) == 0
    return tmp_path


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_gram_spectrum_of_a_store(store, capsys):
    import zarr

    out = store / "spec.csv"
    assert main(["gram-spectrum", "--gram", str(store / "K.zarr"), "--labels", str(store / "x.npz"),
                 "--out", str(out)]) == 0
    rows = _rows(out)
    assert rows[0] == ["index", "eigenvalue", "trustworthy", "cumulative_alignment"]
    K = np.asarray(zarr.open_group(str(store / "K.zarr"))["gram"][:])
    values = np.array([float(r[1]) for r in rows[1:]])
    assert values.shape == (12,) and np.all(np.isfinite(values))
    assert values.sum() * 12 == pytest.approx(np.trace(K), rel=1e-10)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(K)[::-1] / 12, rtol=1e-10, atol=1e-14 * values[0])
    assert float(rows[-1][3]) == pytest.approx(1.0, rel=1e-12)
    stdout = capsys.readouterr().out.strip().splitlines()
    assert len(stdout) == 1 and "kernel-target alignment 0." in stdout[0] and str(out) in stdout[0]


def test_gram_spectrum_without_labels_and_npy(tmp_path, capsys):
    x = np.random.default_rng(1).standard_normal((6, 3))
    np.save(tmp_path / "K.npy", x @ x.T)
    assert main(["gram-spectrum", "--gram", str(tmp_path / "K.npy"), "--out", str(tmp_path / "s.csv")]) == 0
    rows = _rows(tmp_path / "s.csv")[1:]
    assert [r[3] for r in rows] == [""] * 6
    assert [r[2] for r in rows] == ["True"] * 3 + ["False"] * 3  # rank 3: the rest is rounding
    assert "no labels given" in capsys.readouterr().out


def _refused(argv, capsys, match):
    """Exit code 2 and one error line (the last on stderr, after any progress bar) holding ``match``."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refused an option
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) == 1 and match in err.splitlines()[-1], err


def test_gram_spectrum_refusals(store, capsys):
    import zarr

    gram = ["--gram", str(store / "K.zarr")]
    _refused(["gram-spectrum", *gram, "--out", str(store / "s.jpg")], capsys,
             "--out must end in .csv or .png or .svg or .pdf")
    np.save(store / "short.npy", np.arange(5))
    _refused(["gram-spectrum", *gram, "--labels", str(store / "short.npy"), "--out", str(store / "s.csv")],
             capsys, "5 labels, the Gram matrix has 12 rows")
    zarr.open_group(str(store / "K.zarr"), mode="r+")["tile_sha256"][2:3, 2:3, :] = np.zeros((1, 1, 32), np.uint8)
    _refused(["gram-spectrum", *gram, "--out", str(store / "s.csv")], capsys, "K.zarr: 1 of 6 tiles are missing or damaged")
    assert not (store / "s.csv").exists()


def test_data_theory_csv(store, capsys):
    out = store / "t.csv"
    assert main(["data-theory", "--gram", str(store / "K.zarr"), "--labels", str(store / "x.npz"),
                 "--n", "6,3", "--random-labels", "--draws", "3", "--seed", "2", "--out", str(out)]) == 0
    rows = _rows(out)
    assert rows[0][:8] == ["n", "labels", "certificate", "lambda_min", "predicted_test_mse",
                           "measured_test_mse", "measured_test_mse_sem", "measured_accuracy"]
    assert [(r[0], r[1]) for r in rows[1:]] == [("3", "true"), ("3", "random"), ("6", "true"), ("6", "random")]
    for r in rows[1:]:
        assert all(np.isfinite(float(v)) for v in r[2:12])
    err = capsys.readouterr().err
    assert "data-theory: pool N = 12" in err and "random labels: certificate" in err


@pytest.mark.parametrize("extra, match", [
    (["--n", "12"], "--n must be in [1, 11] (below the pool size N = 12), got 12"),
    (["--n", "5,5"], "--n must not repeat a value, got 5 twice"),
    (["--n", "5,x"], "--n must be integers separated by commas"),
    (["--n", "0"], "--n must be integers in [1, N - 1], got 0"),
    (["--n", "5", "--draws", "0"], "argument --draws: must be in [1, 1000], got 0"),
    (["--n", "5", "--ridge", "-1"], "argument --ridge: must be in [0, 1e+06]"),
])
def test_data_theory_refusals(store, capsys, extra, match):
    _refused(["data-theory", "--gram", str(store / "K.zarr"), "--labels", str(store / "x.npz"),
              "--out", str(store / "t.csv"), *extra], capsys, match)
    assert not (store / "t.csv").exists()


def test_data_theory_needs_labels_and_figure_options_need_a_figure(store, capsys):
    _refused(["data-theory", "--gram", str(store / "K.zarr"), "--n", "5", "--out", str(store / "t.csv")],
             capsys, "the following arguments are required: --labels")
    _refused(["data-theory", "--gram", str(store / "K.zarr"), "--labels", str(store / "x.npz"), "--n", "5",
              "--view", "spectrum", "--out", str(store / "t.csv")], capsys,
             "--view applies to a figure (--out .png, .svg or .pdf), not to t.csv")
    _refused(["data-theory", "--gram", str(store / "K.zarr"), "--labels", str(store / "x.npz"), "--n", "5",
              "--width", "8", "--out", str(store / "t.png")], capsys, "--width must be in [16, 20000]")
    assert not (store / "t.png").exists()


def test_data_theory_interrupted(store, capsys, monkeypatch):
    import ntkviz.core.learning as learning

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(learning, "subset_fit", interrupt)
    assert main(["data-theory", "--gram", str(store / "K.zarr"), "--labels", str(store / "x.npz"), "--n", "5",
                 "--out", str(store / "t.csv")]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "ntkviz: interrupted"
    assert not (store / "t.csv").exists()
