"""``ntkviz gram``: files in, matrix out, one-line errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.cntk import PRESETS, gram_matrix


@pytest.fixture(scope="module")
def oracle(data_dir):
    return np.load(data_dir / "ckn_kernel_first12.npz")


def test_gram_preset_matches_oracle(tmp_path, oracle, capsys):
    images = tmp_path / "x.npy"
    np.save(images, oracle["images_first12"][:5].astype(np.float64) / 255.0)
    out = tmp_path / "K.npy"
    assert main(["gram", "--model", "M3", "--images", str(images), "--mode", "ntk", "--out", str(out)]) == 0
    K = np.load(out)
    ref = oracle["M3_ntk_first12_K"][:5, :5]
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose(K[off], ref[off], rtol=1e-12)
    np.testing.assert_allclose(np.diag(K), np.diag(ref), rtol=1e-9)
    assert "gram: 100.0 %" in capsys.readouterr().err


def test_gram_json_model_channels_and_cross(tmp_path, data_dir):
    model = tmp_path / "m.json"
    meta = json.loads((data_dir / "ckn_kernel_first12.json").read_text())
    model.write_text(json.dumps(meta["models"]["M4"]))
    rng = np.random.default_rng(0)
    a, b = rng.random((3, 28, 28, 2)), rng.random((2, 28, 28, 2))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "C.npy"
    assert main(["gram", "--model", str(model), "--images", str(tmp_path / "a.npy"), "--images-b",
                 str(tmp_path / "b.npy"), "--mode", "ckn", "--out", str(out)]) == 0
    np.testing.assert_allclose(np.load(out), gram_matrix(a, PRESETS["M4"], "ckn", images_b=b), rtol=1e-14)


@pytest.mark.parametrize("args,match", [
    (["--model", "M9"], "--model must be one of M1, M2, M3, M4 or a .json file"),
    (["--model", "missing.json"], "cannot read model file"),
    (["--model", "M4", "--mode", "ntk"], "needs the relu patch kernel"),
    (["--images", "nope.npy"], "no such file"),
    (["--images", "flat.npy"], r"shape \(N, H, W\)"),
    (["--images", "small.npy"], "does not fit 8x8 images"),
    (["--out", "K.txt"], "--out must end in"),
])
def test_gram_errors_are_one_line(tmp_path, monkeypatch, capsys, args, match):
    monkeypatch.chdir(tmp_path)
    np.save("x.npy", np.zeros((2, 28, 28)))
    np.save("flat.npy", np.zeros(10))
    np.save("small.npy", np.zeros((2, 8, 8)))
    base = {"--model": "M1", "--images": "x.npy", "--mode": "ckn", "--out": "K.npy"}
    base.update(dict(zip(args[::2], args[1::2])))
    argv = ["gram"] + [t for kv in base.items() for t in kv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ntkviz gram: error:")
    assert __import__("re").search(match, err[0])
