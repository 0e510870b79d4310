"""Messages that name the thing: pre-release sessions, classification sets that cannot
classify every test image, seeds, negative values, huge integers in sessions, screenshot
folders, stability amplitudes, and the exact multiplicities of the spectrum CSV."""
from __future__ import annotations

import csv
import json
import math
import time

import numpy as np
import pytest

from faultlib import check_kept, error_line, run_cli


@pytest.fixture()
def no_window(monkeypatch):
    import ntkviz.gui.app

    opened = []
    monkeypatch.setattr(ntkviz.gui.app, "main", lambda **kwargs: opened.append(kwargs) or 0)
    return opened


def _session(tmp_path, panels: dict, raw: str | None = None):
    path = tmp_path / "s.json"
    path.write_text(raw if raw is not None else json.dumps({"app": "ntkviz", "session_format": 1,
                                                            "panels": panels}))
    return path


# ------------------------------------------------------------------ 11. the pre-release deformation format
PRE_RELEASE = [
    ("architecture as a preset name", {"architecture": "M1"}, "architecture"),
    ("architecture as a list", {"architecture": [1, 2, 3]}, "architecture"),
    ("digit of a bogus kind", {"digit": {"kind": "bogus"}}, "digit"),
    ("user digit without pixels", {"digit": {"kind": "user"}}, "digit"),
    ("nested deformation", {"deformation": {"rotation_deg": 5.0}}, "deformation"),
]


@pytest.mark.parametrize("case", PRE_RELEASE, ids=[c[0] for c in PRE_RELEASE])
def test_pre_release_deformation_session_is_refused(case, tmp_path, capsys, no_window):
    _, state, field = case
    code, _, err = run_cli(["gui", "--session", _session(tmp_path, {"deform": state})], capsys)
    line = error_line(err)
    assert code == 2 and f"'{field}'" in line and "s.json" in line, line
    assert no_window == []
    from ntkviz.models.deformation import DeformationModel

    with pytest.raises(ValueError, match=field):
        DeformationModel.parse(state)


# ------------------------------------------------------------------ 12. classification
@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    d = tmp_path_factory.mktemp("classify-sets")
    rng = np.random.default_rng(11)
    x = rng.random((12, 8, 8))
    np.savez(d / "one_class.npz", images=x, labels=np.zeros(12, np.int64))
    np.savez(d / "two_classes.npz", images=x, labels=np.arange(12) % 2)
    np.savez(d / "test.npz", images=rng.random((10, 8, 8)), labels=np.array([0, 1, 2, 3, 0, 1, 2, 3, 0, 1]))
    np.savez(d / "single.npz", images=x[:1], labels=np.zeros(1, np.int64))
    (d / "m.json").write_text(json.dumps([{"npatch": 3, "subsampling": 2}]))
    return d


def _classify(d, train, *extra):
    return ["classify", "--train", d / train, "--test", d / "test.npz", "--model", d / "m.json",
            "--kernels", "ntk,pixels", "--ridge", "0.1", *extra]


def _warnings(err: str) -> list[str]:
    return [ln for ln in err.replace("\r", "\n").splitlines() if "warning" in ln]


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_one_class_training_set_is_warned_and_counted(sets, tmp_path, capsys):
    out = tmp_path / "r.csv"
    code, _, err = run_cli([*_classify(sets, "one_class.npz", "--train-sizes", "4,12"), "--out", out], capsys)
    assert code == 0, err
    warned = _warnings(err)
    assert len(warned) == 1 and warned[0].startswith("ntkviz classify: warning:"), warned
    assert "a single class" in warned[0] and "7 of 10 test images" in warned[0], warned[0]
    rows = _rows(out)
    test_labels = np.load(sets / "test.npz")["labels"]
    for r in rows:
        assert int(r["train_classes"]) == 1
        assert int(r["unseen_test_labels"]) == int(np.count_nonzero(test_labels != 0))
        # one class: every prediction is that class, so the accuracy is its share of the test set
        assert float(r["accuracy"]) == pytest.approx(np.mean(test_labels == 0))


def test_test_labels_unseen_in_training_are_warned_and_counted(sets, tmp_path, capsys):
    out = tmp_path / "r.csv"
    code, _, err = run_cli([*_classify(sets, "two_classes.npz", "--train-sizes", "6"), "--out", out], capsys)
    assert code == 0, err
    warned = _warnings(err)
    assert len(warned) == 1 and "4 of 10 test images" in warned[0] and "never" in warned[0], warned
    test_labels = np.load(sets / "test.npz")["labels"]
    for r in _rows(out):
        assert int(r["train_classes"]) == 2
        assert int(r["unseen_test_labels"]) == int(np.count_nonzero(test_labels >= 2))
        assert float(r["accuracy"]) <= np.mean(test_labels < 2) + 1e-12  # unseen labels are never right


def test_covering_training_set_gives_no_warning(sets, tmp_path, capsys):
    np.savez(tmp_path / "test.npz", images=np.load(sets / "test.npz")["images"], labels=np.arange(10) % 2)
    code, _, err = run_cli(["classify", "--train", sets / "two_classes.npz", "--test", tmp_path / "test.npz",
                            "--model", sets / "m.json", "--kernels", "pixels", "--train-sizes", "6",
                            "--out", tmp_path / "r.csv"], capsys)
    assert code == 0 and _warnings(err) == [], err
    assert {r["unseen_test_labels"] for r in _rows(tmp_path / "r.csv")} == {"0"}


@pytest.mark.parametrize("seed", ["-1", "4294967296", "x"])
def test_seed_is_checked_before_anything_runs(seed, sets, kept, capsys):
    start = time.perf_counter()
    code, _, err = run_cli([*_classify(sets, "two_classes.npz", "--train-sizes", "6"), "--seed", seed,
                            "--out", kept / "kept.csv"], capsys)
    line = error_line(err)
    assert code == 2 and "--seed" in line, line
    assert "%" not in err  # no progress bar was started
    assert time.perf_counter() - start < 5
    check_kept(kept)


def test_one_image_training_set_says_it_is_too_small(sets, kept, capsys):
    code, _, err = run_cli([*_classify(sets, "single.npz", "--train-sizes", "2"), "--out", kept / "kept.csv"],
                           capsys)
    line = error_line(err)
    assert code == 2 and "too small" in line and "1 image" in line and "[2, 1]" not in line, line
    check_kept(kept)


# ------------------------------------------------------------------ 13. negative values, huge integers, folders
NEGATIVE = [
    ("learn --target -1:1", "learn --kernels ntk --dim 3 --n 10 --no-empirical --target -1:1",
     "--target '-1:1' is not valid"),
    ("stability --amplitudes -1,0.1", "stability --amplitudes -1,0.1", "--amplitudes"),
    ("kernel --u -2,0", "kernel --name ntk --u -2,0", "--u"),
]


@pytest.mark.parametrize("case", NEGATIVE, ids=[c[0] for c in NEGATIVE])
def test_values_starting_with_a_minus_sign_reach_their_check(case, kept, capsys):
    _, argv, needle = case
    code, _, err = run_cli([*argv.split(), "--out", kept / "kept.csv"], capsys)
    line = error_line(err)
    assert code == 2 and needle in line and "expected one argument" not in line, line
    check_kept(kept)


def test_negative_value_accepted_where_valid(tmp_path, capsys):
    out = tmp_path / "k.csv"
    code, _, err = run_cli(["kernel", "--name", "arccos1", "--u", "-0.5,0.25", "--out", out], capsys)
    assert code == 0, err
    with open(out, newline="") as fh:
        assert [float(r["u"]) for r in csv.DictReader(fh)] == [-0.5, 0.25]


@pytest.mark.parametrize("digits", [4301, 5000, 200_000])
def test_huge_integer_in_a_session_names_the_field(digits, tmp_path, capsys, no_window):
    raw = '{"app": "ntkviz", "session_format": 1, "panels": {"kernel": {"depth": %s}}}' % ("9" * digits)
    start = time.perf_counter()
    code, _, err = run_cli(["gui", "--session", _session(tmp_path, {}, raw)], capsys)
    line = error_line(err)
    assert code == 2 and "depth" in line and "s.json" in line, line
    assert "set_int_max_str_digits" not in line and len(line) < 300, line
    assert time.perf_counter() - start < 5
    assert no_window == []


@pytest.mark.parametrize("target", ["/proc/o.png", "{tmp}/missing/o.png", "{tmp}/folder.png", "{tmp}/o.txt"])
def test_screenshot_path_is_checked_before_the_app_starts(target, tmp_path, capsys, no_window):
    (tmp_path / "folder.png").mkdir()
    code, _, err = run_cli(["gui", "--tab", "stability", "--screenshot", target.format(tmp=tmp_path)], capsys)
    line = error_line(err)
    assert code == 2 and "--screenshot" in line, line
    assert no_window == []  # no window, no job


def test_stability_amplitude_beyond_the_family_names_the_option(kept, capsys):
    code, _, err = run_cli(["stability", "--amplitudes", "1000", "--family", "rotation", "--out",
                            kept / "kept.csv"], capsys)
    line = error_line(err)
    assert code == 2 and "--amplitudes" in line and "rotation_deg" not in line and "360" in line, line
    check_kept(kept)
    from ntkviz.models.stability import StabilityParams

    with pytest.raises(ValueError) as info:
        StabilityParams(family="rotation", amplitude_min=1.0, amplitude_max=1000.0)
    assert "rotation_deg" not in str(info.value) and "amplitude_max" in str(info.value)


# ------------------------------------------------------------------ 14. exact multiplicities
def test_spectrum_csv_keeps_exact_multiplicities_and_their_log10(tmp_path, capsys):
    out = tmp_path / "s.csv"
    p, kmax = 1000, 2000
    code, _, err = run_cli(["spectrum", "--name", "arccos1", "--dim", str(p), "--kmax", str(kmax), "--out", out],
                           capsys)
    assert code == 0, err
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    exact = [1] + [(2 * k + p - 2) * math.comb(k + p - 3, k - 1) // k for k in range(1, kmax + 1)]  # N(p, k)
    assert [int(r["multiplicity"]) for r in rows] == exact
    assert max(exact) > 10 ** 309  # beyond float64: read as text, or through log10_multiplicity
    logs = np.genfromtxt(out, delimiter=",", names=True)["log10_multiplicity"]
    assert np.all(np.isfinite(logs))
    want = [math.log10(n) for n in exact]  # Python's log10 of an exact int: no overflow
    np.testing.assert_allclose(logs, want, rtol=1e-14)


def test_readme_says_how_to_read_the_multiplicities():
    from pathlib import Path

    import re

    readme = re.sub(r"\s+", "", (Path(__file__).resolve().parents[2] / "README.md").read_text())
    assert "log10_mu,trustworthy,log10_trustworthy,log10_multiplicity" in readme  # the spectrum CSV's columns
    assert "dtype={\"multiplicity\":str}" in readme  # and how to read the exact integers
