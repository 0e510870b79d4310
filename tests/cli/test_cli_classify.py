"""``ntkviz classify``: CSV of accuracies, cache reuse, one-line errors."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.deformations.digits import load_digits
from ntkviz.dataset._accuracy import wilson_interval as wilson


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("classify")
    images, labels = load_digits()
    x = (images / 255.0).reshape(-1, 14, 2, 14, 2).mean(axis=(2, 4))
    order = np.random.default_rng(5).permutation(len(labels))
    np.savez(d / "train.npz", images=x[order[:40]], labels=labels[order[:40]])
    np.savez(d / "test.npz", images=x[order[40:70]], labels=labels[order[40:70]])
    (d / "m.json").write_text(json.dumps([{"npatch": 3, "subsampling": 2}, {"npatch": 3, "subsampling": 3}]))
    return d


def test_classify_writes_csv_and_reuses_cache(data, tmp_path, capsys):
    out = tmp_path / "r.csv"
    args = ["classify", "--train", str(data / "train.npz"), "--test", str(data / "test.npz"),
            "--model", str(data / "m.json"), "--kernels", "ckn,ntk,pixels", "--train-sizes", "20,40",
            "--deform", "rotation:0,20", "--cache", str(tmp_path / "cache"), "--ridge", "auto"]
    assert main(args + ["--out", str(out)]) == 0
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["kernel", "train_size", "deformation", "amplitude", "accuracy", "train_classes",
                       "unseen_test_labels", "n_test", "accuracy_ci_low", "accuracy_ci_high"]
    assert len(rows) == 1 + 3 * 2 * 2
    assert {r[7] for r in rows[1:]} == {"30"}
    for r in rows[1:]:  # the 95 % Wilson interval of 30 test images (its own test: test_accuracy.py)
        assert float(r[8]) <= float(r[4]) <= float(r[9])
        assert (float(r[8]), float(r[9])) == pytest.approx(wilson(round(30 * float(r[4])), 30), abs=1e-15)
    assert {r[0] for r in rows[1:]} == {"ckn", "ntk", "pixels"}
    assert all(0.0 <= float(r[4]) <= 1.0 for r in rows[1:])
    stores = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert len(stores) == 6  # (ckn, ntk) x (train, test at 0, test at 20)
    assert main(args + ["--out", str(tmp_path / "r2.csv")]) == 0  # from the cache
    assert (tmp_path / "r2.csv").read_text() == out.read_text()


@pytest.mark.parametrize("extra,match", [
    (["--train-sizes", "1000"], r"--train-sizes must be in \[2, 40\]"),
    (["--kernels", "ckn,foo"], "--kernels must be among ckn, ntk, pixels, scattering, got .foo."),
    (["--splits", "0"], r"argument --splits: must be in \[1, 100\], got 0"),
    (["--ridge", "-1"], "--ridge must be in"),
    (["--deform", "spin:1"], "FAMILY one of"),
])
def test_bad_arguments(data, tmp_path, capsys, extra, match):
    args = ["classify", "--train", str(data / "train.npz"), "--test", str(data / "test.npz"),
            "--model", "M1", "--out", str(tmp_path / "r.csv"), *extra]
    try:
        code = main(args)
    except SystemExit as exc:  # refused by argparse
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and __import__("re").search(match, err[0]), err
    assert not (tmp_path / "r.csv").exists()


def test_labels_missing_or_wrong_length(data, tmp_path, capsys):
    np.save(tmp_path / "nolabels.npy", np.load(data / "train.npz")["images"])
    z = np.load(data / "test.npz")
    np.savez(tmp_path / "short.npz", images=z["images"], labels=z["labels"][:-1])
    for train, test, match in [(tmp_path / "nolabels.npy", data / "test.npz", "labels missing"),
                               (data / "train.npz", tmp_path / "short.npz", "labels has length 29")]:
        assert main(["classify", "--train", str(train), "--test", str(test), "--model", "M1",
                     "--out", str(tmp_path / "r.csv")]) == 2
        assert match in capsys.readouterr().err


def test_export_classification_csv_is_the_jobs_table(tmp_path, monkeypatch):
    from ntkviz.jobs import ClassifyRequest

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    out = tmp_path / "acc.csv"
    assert main(["export", "classification", "--kernels", "pixels", "--train-sizes", "20,60",
                 "--test-size", "50", "--amplitudes", "0,30", "--view", "deformation", "--out", str(out)]) == 0
    want = ClassifyRequest(kernels=("pixels",), train_sizes=(20, 60), test_size=50,
                           amplitudes=(0.0, 30.0))().csv_table("deformation")
    rows = list(csv.reader(out.open()))
    assert rows[0] == want[0]
    assert [[r[0], int(r[1]), r[2], float(r[3]), float(r[4]), int(r[5]), int(r[6]), int(r[7]), float(r[8]),
             float(r[9])] for r in rows[1:]] == want[1]
    assert main(["export", "classification", "--train-sizes", "1", "--out", str(out)]) == 2


def test_out_is_checked_like_every_csv_command(data, tmp_path, capsys):
    """--out goes through the command line's one CSV output check (cli._common.output_path)
    before anything is read or computed."""
    (tmp_path / "dir.csv").mkdir()
    cases = [(tmp_path / "r.txt", "--out must end in .csv, got 'r.txt'"),
             (tmp_path / "missing" / "r.csv", "--out folder"),
             (tmp_path / "dir.csv", "is a folder")]
    for out, match in cases:
        assert main(["classify", "--train", str(data / "train.npz"), "--test", str(data / "test.npz"),
                     "--model", "M1", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and match in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.csv"]


def test_classify_scattering_kernel(data, tmp_path):
    out = tmp_path / "s.csv"
    assert main(["classify", "--train", str(data / "train.npz"), "--test", str(data / "test.npz"),
                 "--model", "M1", "--kernels", "scattering,pixels", "--scattering-j", "1", "--scattering-l", "4",
                 "--train-sizes", "20,40", "--ridge", "0.1", "--out", str(out)]) == 0
    rows = list(csv.reader(out.open()))
    assert [r[:2] for r in rows[1:]] == [["scattering", "20"], ["scattering", "40"], ["pixels", "20"], ["pixels", "40"]]
    assert all(0.0 <= float(r[4]) <= 1.0 for r in rows[1:])


@pytest.mark.parametrize("extra,match", [
    (["--kernels", "pixels", "--scattering-j", "2"], "--scattering-j applies to the scattering map only"),
    (["--kernels", "scattering", "--scattering-j", "4"], "--kernels scattering: scattering J = 4 needs image "
                                                         "sides >= 2\\^J = 16, got 14×14"),
    (["--kernels", "scattering", "--scattering-l", "17"], "--scattering-l"),
])
def test_bad_scattering_arguments(data, tmp_path, capsys, extra, match):
    args = ["classify", "--train", str(data / "train.npz"), "--test", str(data / "test.npz"),
            "--model", "M1", "--train-sizes", "20", "--out", str(tmp_path / "r.csv"), *extra]
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and __import__("re").search(match, err[0]), err
    assert not (tmp_path / "r.csv").exists()


def _csv(path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_wilson_intervals_cover_the_mean_of_20_random_splits(tmp_path, capsys):
    """The acceptance test of the intervals: ``ntkviz classify`` on a 200/200 split of the bundled
    digits (pixels, relative ridge 0.01: seconds), repeated on 20 random splits. The mean accuracy
    over the splits stands for the true one; at least 90 % (18) of the 20 splits' 95 % Wilson
    intervals must contain it (an interval of the test sampling only; the training sets differ too)."""
    images, labels = load_digits()
    order = np.random.default_rng(11).permutation(len(labels))[:400]
    np.savez(tmp_path / "train.npz", images=images[order[:200]], labels=labels[order[:200]])
    np.savez(tmp_path / "test.npz", images=images[order[200:]], labels=labels[order[200:]])
    out = tmp_path / "splits.csv"
    assert main(["classify", "--train", str(tmp_path / "train.npz"), "--test", str(tmp_path / "test.npz"),
                 "--model", "M1", "--kernels", "pixels", "--train-sizes", "200", "--ridge", "0.01",
                 "--splits", "20", "--seed", "3", "--out", str(out)]) == 0
    rows = _csv(out)
    assert list(rows[0]) == ["kernel", "train_size", "deformation", "amplitude", "accuracy", "train_classes",
                             "unseen_test_labels", "n_test", "accuracy_ci_low", "accuracy_ci_high", "split",
                             "accuracy_sem"]
    splits = [r for r in rows if r["split"] != "mean"]
    (mean,) = [r for r in rows if r["split"] == "mean"]
    assert [r["split"] for r in splits] == [str(s) for s in range(20)]
    accuracy = np.array([float(r["accuracy"]) for r in splits])
    assert all(r["n_test"] == "200" for r in rows)
    assert len(set(accuracy)) > 5  # the splits differ
    assert float(mean["accuracy"]) == pytest.approx(accuracy.mean(), rel=1e-12)
    assert float(mean["accuracy_sem"]) == pytest.approx(accuracy.std(ddof=1) / np.sqrt(20), rel=1e-12)
    inside = [float(r["accuracy_ci_low"]) <= accuracy.mean() <= float(r["accuracy_ci_high"]) for r in splits]
    assert sum(inside) >= 18, (sum(inside), accuracy)
    assert "mean over 20 splits" in capsys.readouterr().err


def test_split_zero_is_the_files_own(data, tmp_path):
    """With --splits, split 0 reproduces the run without it; the other splits divide the union
    of both files into sets of the same sizes."""
    base = ["classify", "--train", str(data / "train.npz"), "--test", str(data / "test.npz"), "--model", "M1",
            "--kernels", "pixels", "--train-sizes", "10,40", "--ridge", "0.1"]
    assert main(base + ["--out", str(tmp_path / "one.csv")]) == 0
    assert main(base + ["--splits", "3", "--out", str(tmp_path / "three.csv")]) == 0
    one, three = _csv(tmp_path / "one.csv"), _csv(tmp_path / "three.csv")
    assert [{k: r[k] for k in one[0]} for r in three if r["split"] == "0"] == one
    assert [r["split"] for r in three] == ["0", "0", "1", "1", "2", "2", "mean", "mean"]
    assert {r["n_test"] for r in three} == {"30"}
