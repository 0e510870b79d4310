"""One rule for lists and options, in every command, tab and session: empty entries and
repeated values are refused, options that do not apply are refused, one range per quantity.
Each refusal: exit 2, one line naming the option or field, nothing written."""
from __future__ import annotations

import json

import numpy as np
import pytest

from faultlib import check_kept, error_line, run_cli


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    d = tmp_path_factory.mktemp("lists")
    rng = np.random.default_rng(3)
    np.savez(d / "d.npz", images=rng.random((30, 8, 8)), labels=np.arange(30) % 3)
    (d / "m.json").write_text(json.dumps([{"npatch": 3, "subsampling": 2}]))
    return d


def _classify(d, *extra):
    return ["classify", "--train", d / "d.npz", "--test", d / "d.npz", "--model", d / "m.json", *extra]


LEARN = "learn --dim 3 --n 10 --no-empirical"

CASES = [  # (id, argv after the command's fixed part, needle)
    ("classify kernels twice", ["--kernels", "ntk,ntk"], "--kernels"),
    ("classify kernels trailing comma", ["--kernels", "ntk,"], "--kernels"),
    ("classify kernels empty entry", ["--kernels", "ckn,,ntk"], "--kernels"),
    ("classify train sizes twice", ["--train-sizes", "20,20"], "--train-sizes"),
    ("classify train sizes 10 and 10.0", ["--train-sizes", "10,20,10"], "--train-sizes"),
    ("classify deform amplitudes twice", ["--deform", "shear:5,5"], "--deform"),
    ("classify deform amplitudes 0 and 0.0", ["--deform", "rotation:0,0.0"], "--deform"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_classify_lists(case, labelled, kept, capsys):
    _, extra, needle = case
    argv = _classify(labelled, *(extra if "--kernels" in extra else ["--kernels", "ntk", *extra]),
                     "--out", kept / "kept.csv")
    code, _, err = run_cli(argv, capsys)
    line = error_line(err)
    assert code == 2 and needle in line, line
    assert "repeat" in line or "separated by commas" in line, line
    check_kept(kept)


LEARN_CASES = [
    ("learn n twice", "--kernels ntk --n 50,50", "--n", "repeat"),
    ("learn n empty entry", "--kernels ntk --n 50,,100", "--n", "separated by commas"),
    ("learn kernels twice", "--kernels ntk,ntk", "--kernels", "repeat"),
    ("learn kernels empty entry", "--kernels ntk,", "--kernels", "separated by commas"),
    ("learn depth with arccos0", "--kernels arccos0 --depth 3", "--depth", "ntk and nngp"),
    ("learn bias with arccos kernels", "--kernels arccos0,arccos1 --bias 0.5", "--bias", "ntk and nngp"),
    ("learn activation with arccos1", "--kernels arccos1 --activation tanh", "--activation", "ntk and nngp"),
    ("kernel u repeated", "kernel --name ntk --u=1,1,1", "--u", "repeat"),
    ("kernel u 0.5 and .5", "kernel --name ntk --u=0.5,.5", "--u", "repeat"),
]


@pytest.mark.parametrize("case", LEARN_CASES, ids=[c[0] for c in LEARN_CASES])
def test_learn_and_kernel_lists(case, kept, capsys):
    _, extra, needle, why = case
    argv = extra.split() if extra.startswith("kernel ") else [*LEARN.split(), *extra.split()]
    # --n given twice: the case's value wins (argparse keeps the last)
    code, _, err = run_cli([*argv, "--out", kept / "kept.csv"], capsys)
    line = error_line(err)
    assert code == 2 and needle in line and why in line, line
    check_kept(kept)


def test_learn_deep_options_apply_to_a_mix(tmp_path, capsys):
    """--depth applies when one of the kernels is deep (ntk,arccos1): accepted."""
    code, _, err = run_cli([*LEARN.split(), "--kernels", "ntk,arccos1", "--depth", "3", "--out",
                            tmp_path / "c.csv"], capsys)
    assert code == 0, err


# ------------------------------------------------------------------ one parser
BAD_TEXTS = ["3,,5", "3,", ",", "3,3"]


def _parsers():
    from ntkviz._text import parse_list
    from ntkviz.cli._classify import _kernels, _sizes
    from ntkviz.cli._common import choice_list, float_list, int_list
    from ntkviz.cli._learn import _n_list
    from ntkviz.dataset.classify import parse_deform
    from ntkviz.models.kernel_curves import parse_int_list

    return {
        "parse_list": lambda t: parse_list("x", t),
        "int_list": int_list(0, 100),
        "float_list": float_list,
        "choice_list": lambda t: choice_list(("3", "5"))(t),
        "kernel_curves.parse_int_list": lambda t: parse_int_list("x", t),
        "classify --deform": lambda t: parse_deform(f"rotation:{t}"),
        "classify --train-sizes": lambda t: _sizes(t, 100),
        "classify --kernels": lambda t: _kernels(t.replace("3", "ntk").replace("5", "ckn")),
        "learn --n": _n_list,
    }


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_every_list_parser_refuses_the_same_texts(text):
    import argparse

    from ntkviz.cli import CliError

    for name, parse in _parsers().items():
        with pytest.raises((ValueError, CliError, argparse.ArgumentTypeError)):
            parse(text)
            pytest.fail(f"{name} accepted {text!r}")


# ------------------------------------------------------------------ the tabs' text fields
def test_generalisation_monte_carlo_sizes_field(qtbot):
    pytest.importorskip("PySide6")
    from ntkviz.gui.headless import build_panel, ensure_app
    from ntkviz.gui.panels.learning import QtLearningPanel

    ensure_app()
    panel = build_panel(QtLearningPanel, {"kmax": 20, "n": 20}, size=(1000, 700))
    try:
        before = panel.model.params.mc_sizes
        for text in ("50,,100", "50,50", "50,", "50,1e2"):
            panel.controls.sizes_edit.setText(text)
            panel.controls.sizes_edit.editingFinished.emit()
            assert panel.model.params.mc_sizes == before, text
            assert "mc_sizes" in panel.last_error, (text, panel.last_error)
            assert panel.controls.sizes_edit.text() == ",".join(map(str, before))
        panel.controls.sizes_edit.setText(" 30, 60 ")
        panel.controls.sizes_edit.editingFinished.emit()
        assert panel.model.params.mc_sizes == (30, 60)
    finally:
        panel.dispatcher.shutdown()


# ------------------------------------------------------------------ sessions
SESSIONS = [
    ("generalisation sizes twice", "learning", {"mc_sizes": [50, 50]}, "mc_sizes"),
    ("classification sizes twice", "classification", {"train_sizes": [20, 40, 20]}, "train_sizes"),
    ("classification amplitudes twice", "classification", {"amplitudes": [0, 15, 15]}, "amplitudes"),
    ("stability digits twice", "stability", {"digits": [3, 3]}, "digits"),
    ("kernel extra depths twice", "kernel", {"extra_depths": [3, 3]}, "extra_depths"),
]


@pytest.mark.parametrize("case", SESSIONS, ids=[c[0] for c in SESSIONS])
def test_sessions_refuse_repeated_values(case, tmp_path, capsys, monkeypatch):
    import ntkviz.gui.app

    _, panel, state, needle = case
    opened = []
    monkeypatch.setattr(ntkviz.gui.app, "main", lambda **kw: opened.append(kw) or 0)
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"app": "ntkviz", "session_format": 1, "panels": {panel: state}}))
    code, _, err = run_cli(["gui", "--session", path], capsys)
    line = error_line(err)
    assert code == 2 and needle in line and "repeat" in line and "s.json" in line, line
    assert opened == []


# ------------------------------------------------------------------ one range per quantity
def test_kmax_has_one_range(tmp_path, capsys):
    from ntkviz import limits
    from ntkviz.models.spectrum import SPECTRUM_KMAX_RANGE

    assert SPECTRUM_KMAX_RANGE == limits.KMAX_RANGE
    lo, hi = limits.KMAX_RANGE
    for argv in (["spectrum", "--name", "ntk", "--dim", "3"], ["export", "spectrum", "--dim", "3"]):
        for bad in (lo - 1, hi + 1):
            code, _, err = run_cli([*argv, "--kmax", str(bad), "--out", tmp_path / "s.csv"], capsys)
            line = error_line(err)
            assert code == 2 and "kmax" in line and f"[{lo}, {hi}]" in line, line
        code, _, err = run_cli([*argv, "--kmax", str(lo), "--out", tmp_path / "s.csv"], capsys)
        assert code == 0, err
    assert not (tmp_path / "s.csv").with_name("s.csv.part").exists()
