"""``ntkviz classify``: CSV of accuracies, cache reuse, one-line errors."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.deformations.digits import load_digits


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
                       "unseen_test_labels"]
    assert len(rows) == 1 + 3 * 2 * 2
    assert {r[0] for r in rows[1:]} == {"ckn", "ntk", "pixels"}
    assert all(0.0 <= float(r[4]) <= 1.0 for r in rows[1:])
    stores = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert len(stores) == 6  # (ckn, ntk) x (train, test at 0, test at 20)
    assert main(args + ["--out", str(tmp_path / "r2.csv")]) == 0  # from the cache
    assert (tmp_path / "r2.csv").read_text() == out.read_text()


@pytest.mark.parametrize("extra,match", [
    (["--train-sizes", "1000"], r"--train-sizes must be in \[2, 40\]"),
    (["--kernels", "ckn,foo"], "--kernels must be among ckn, ntk, pixels, scattering, got .foo."),
    (["--ridge", "-1"], "--ridge must be in"),
    (["--deform", "spin:1"], "FAMILY one of"),
])
def test_bad_arguments(data, tmp_path, capsys, extra, match):
    args = ["classify", "--train", str(data / "train.npz"), "--test", str(data / "test.npz"),
            "--model", "M1", "--out", str(tmp_path / "r.csv"), *extra]
    assert main(args) == 2
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
    assert [[r[0], int(r[1]), r[2], float(r[3]), float(r[4]), int(r[5]), int(r[6])] for r in rows[1:]] == want[1]
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
