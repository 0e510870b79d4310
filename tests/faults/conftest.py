"""Fixtures of the bad-input / fault suite: input files good and bad, a folder of files to keep."""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from faultlib import SENTINEL

@pytest.fixture(scope="session")
def files(tmp_path_factory) -> dict[str, Path]:
    """Input files, good and bad, shared by the cases (read-only use)."""
    from ntkviz.core.deformations.digits import load_digits

    d = tmp_path_factory.mktemp("fault-inputs")
    images = load_digits()[0][[0, 100]].astype(np.float64) / 255.0  # a 0 and a 1
    out = {}

    def save(name, arr):
        out[name] = d / name
        np.save(out[name], arr)

    save("good.npy", images)
    save("digit.npy", images[0])
    save("stack4.npy", np.repeat(images[:1], 4, axis=0))
    save("nan.npy", np.where(images > 0.5, np.nan, images))
    save("nan_image.npy", np.where(images[0] > 0.5, np.inf, images[0]))
    save("huge.npy", images * 1e300)
    save("zero.npy", np.zeros((28, 28)))
    save("one_pixel.npy", np.ones((1, 1)))
    save("strings.npy", np.array([["a", "b"], ["c", "d"]]))
    save("big_side.npy", np.zeros((300, 500)))
    save("four_d5.npy", np.zeros((1, 2, 3, 4, 5)))
    out["objects.npy"] = d / "objects.npy"
    np.save(out["objects.npy"], np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    out["text.npy"] = d / "text.npy"
    out["text.npy"].write_text("this is not a NumPy file\n")
    out["empty.npy"] = d / "empty.npy"
    out["empty.npy"].write_bytes(b"")
    out["truncated.npy"] = d / "truncated.npy"
    out["truncated.npy"].write_bytes(out["good.npy"].read_bytes()[:200])
    out["pickle.npy"] = d / "pickle.npy"
    out["pickle.npy"].write_bytes(pickle.dumps({"images": 1}))
    out["dir.npy"] = d / "dir.npy"
    out["dir.npy"].mkdir()
    out["missing.npy"] = d / "missing.npy"
    out["bad.json"] = d / "bad.json"
    out["bad.json"].write_text("{not json")
    out["foreign.json"] = d / "foreign.json"
    out["foreign.json"].write_text('["a", "b"]')
    out["badlayer.json"] = d / "badlayer.json"
    out["badlayer.json"].write_text('[{"npatch": 0, "subsampling": 2}]')
    out["unknownkey.json"] = d / "unknownkey.json"
    out["unknownkey.json"].write_text('[{"npatch": 3, "subsampling": 2, "colour": "red"}]')
    out["toolarge.json"] = d / "toolarge.json"
    out["toolarge.json"].write_text('[{"npatch": 40, "subsampling": 2}]')
    out["nested.json"] = d / "nested.json"
    out["nested.json"].write_text("[" * 100_000 + "]" * 100_000)
    out["dir.json"] = d / "dir.json"
    out["dir.json"].mkdir()
    return out


@pytest.fixture()
def kept(tmp_path):
    """A folder whose ``kept.csv`` / ``kept.npy`` exist and must survive a refused command."""
    for name in ("kept.csv", "kept.npy", "kept.png", "kept.gif", "kept.svg"):
        (tmp_path / name).write_text(SENTINEL)
    return tmp_path


