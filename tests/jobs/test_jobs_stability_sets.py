"""The stability view's "sets" request: the paper's ordering on the bundled digits, the
digits each set holds, the user's Infinite-MNIST data, the command line."""
from __future__ import annotations

import csv

import numpy as np
import pytest
from infimnist_files import write_folder

from ntkviz.cli import main
from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.deformations.digits import digit_indices, load_digits
from ntkviz.core.deformations.sets import reference_distances, sweep_architecture
from ntkviz.dataset.infimnist import InfiniteMNIST
from ntkviz.jobs import StabilitySetsRequest


@pytest.fixture(scope="module")
def default_response():
    """The default computation: a "5" against the four sets on M1, last pooling 1, 2, 3, 5,
    without Infinite-MNIST data (ntkviz's own fields)."""
    return StabilitySetsRequest()()


def test_defaults_are_the_papers_figure(default_response):
    r = default_response
    assert r.reference_label == 5 and r.reference_name == f"bundled digit {digit_indices(5)[0]}"
    assert [s.token for s in r.sets] == ["deform:3", "deform+translate:1", "same", "any"]
    assert r.sweep == "last-pooling" and r.values == (1, 2, 3, 5)
    assert r.complete and np.all(r.count == 20)
    assert r.own_fields and "own smooth fields" in r.note
    assert "translation term" in r.axis_reading and "pooling" in r.axis_label


def test_ordering_deformations_same_label_any_label(default_response):
    """For both maps and every last-pooling value: deformations (α = 3) < same label < any
    label, and the NTK's deformation/same-label ratio is above the CKN's."""
    res = default_response
    for v in range(len(res.values)):
        for m in ("ckn", "ntk"):
            deform, same, anyl = res.mean[m][0, v], res.mean[m][2, v], res.mean[m][3, v]
            assert deform < same < anyl, (m, res.values[v], deform, same, anyl)
        ratio = {m: res.mean[m][0, v] / res.mean[m][2, v] for m in ("ckn", "ntk")}
        assert ratio["ntk"] > ratio["ckn"], (res.values[v], ratio)


def test_sets_hold_the_digits_they_say(default_response):
    images, labels = load_digits()
    ref = digit_indices(5)[0]
    x = images[ref] / 255.0
    np.testing.assert_array_equal(default_response.reference, x)
    same = images[digit_indices(5)[1:21]] / 255.0
    any_idx = [digit_indices(k % 10)[(k // 10) + (k % 10 == 5)] for k in range(20)]   # skipping x
    anyl = images[any_idx] / 255.0
    assert sorted(labels[any_idx]) == sorted(k % 10 for k in range(20))   # every label, twice
    ex = default_response.examples
    assert [e.shape for e in ex] == [(8, 28, 28)] * 4
    np.testing.assert_array_equal(ex[2], same[:8])
    np.testing.assert_array_equal(ex[3], anyl[:8])
    for s in (2, 3):   # the values are the distances to these digits, computed directly
        images_s = same if s == 2 else anyl
        arch = sweep_architecture(PRESETS["M1"], "last-pooling", 3)
        ckn, ntk = reference_distances(x, images_s, arch)
        assert default_response.mean["ckn"][s, 2] == pytest.approx(np.mean(ckn), rel=1e-12)
        assert default_response.mean["ntk"][s, 2] == pytest.approx(np.mean(ntk), rel=1e-12)


def test_user_infimnist_data(tmp_path):
    f = write_folder(tmp_path / "data", n_test=3, n_train=30, n_fields=11, seed=2, margin=3)
    f.train_labels[:] = np.arange(30) % 10
    from infimnist_files import idx_bytes

    (f.path / "train-labels-idx1-ubyte").write_bytes(idx_bytes(f.train_labels))
    r = StabilitySetsRequest(reference_label=7, set_size=2, values=(5,), infimnist_data=str(f.path),
                             sets=("deform:3", "deform+translate:1", "same"))()
    assert not r.own_fields and r.note == "" and r.reference_name == "MNIST training digit 7"
    gen = InfiniteMNIST(f.path)
    np.testing.assert_array_equal(r.reference, f.train_images[7] / 255.0)
    np.testing.assert_array_equal(r.examples[0], gen.images(3 + 7 + 30 * np.arange(1, 3), 3.0, False) / 255.0)
    np.testing.assert_array_equal(r.examples[1], gen.images(3 + 7 + 30 * np.arange(1, 3), 1.0, True) / 255.0)
    np.testing.assert_array_equal(r.examples[2], f.train_images[[17, 27]] / 255.0)
    ckn, _ = reference_distances(r.reference, r.examples[0], PRESETS["M1"])
    assert r.mean["ckn"][0, 0] == pytest.approx(np.mean(ckn))


@pytest.mark.parametrize("kwargs,match", [
    (dict(reference_index=100), r"reference_index must be in \[0, 99\]"),
    (dict(set_size=100), "set_size must be at most 99"),
    (dict(sets=("deform",)), "needs its α"),
    (dict(values=(2, 2)), "without repeats"),
    (dict(sweep="layers", values=(1, 5)), "layers 5"),
    (dict(sweep="depth"), "sweep must be one of"),
    (dict(reference_label=10), "reference_label"),
    (dict(infimnist_data="/nonexistent/folder"), "no such folder"),
])
def test_refusals(kwargs, match):
    with pytest.raises(ValueError, match=match):
        StabilitySetsRequest(**kwargs)()


def test_cancel_between_items():
    it = StabilitySetsRequest(sets=("same", "any"), set_size=2, sweep="patch", values=(3, 5)).iterate()
    first = next(it)
    assert first.fraction == pytest.approx(0.25) and not first.partial.complete
    assert first.partial.count.tolist() == [[2, 0], [0, 0]]
    it.close()


# --------------------------------------------------------------------------- command line

def test_cli_sets_csv_is_the_request(tmp_path, capsys):
    out = tmp_path / "fig1.csv"
    argv = ["stability", "--view", "sets", "--reference-label", "5", "--sets", "deform:3,same",
            "--set-size", "3", "--sweep", "last-pooling:2,5", "--out", str(out)]
    assert main(argv) == 0
    rows = list(csv.reader(open(out)))
    assert rows[0] == ["map", "set", "sweep", "value", "mean", "sem", "n"]
    expected = StabilitySetsRequest(sets=("deform:3", "same"), set_size=3, values=(2, 5))().csv_table()[1]
    assert [r[:4] for r in rows[1:]] == [[str(c) for c in e[:4]] for e in expected]
    np.testing.assert_array_equal(np.array([r[4:] for r in rows[1:]], float), np.array([e[4:] for e in expected], float))
    err = capsys.readouterr().err
    assert "own smooth fields" in err and "translation term" in err


@pytest.mark.parametrize("args,match", [
    (["--view", "sets", "--family", "rotation"], "--family does not apply to --view sets"),
    (["--view", "sets", "--digits", "3"], "--digits does not apply"),
    (["--sets", "same"], "--sets applies to --view sets only"),
    (["--sweep", "patch:3"], "--sweep applies to --view sets only"),
    (["--view", "sets", "--sweep", "width:3"], "NAME among last-pooling"),
    (["--view", "sets", "--sweep", "patch:3,3"], "twice"),
    (["--view", "sets", "--sweep", "patch:0"], "in [1, 99], got 0"),
    (["--view", "sets", "--sweep", "last-pooling:9"], "last-pooling 9"),
    (["--view", "sets", "--sets", "bogus"], "set must be one of"),
    (["--view", "sets", "--set-size", "0"], "--set-size"),
])
def test_cli_sets_refusals(tmp_path, capsys, args, match):
    out = tmp_path / "s.csv"
    try:
        code = main(["stability", *args, "--out", str(out)])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0], err
    assert not out.exists()
