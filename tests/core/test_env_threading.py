"""numba threading layer (ntkviz._env): concurrent parallel kernels must never abort."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ntkviz import _env

CONCURRENT = """
import threading, warnings
import numpy as np
warnings.simplefilter("always")
caught = []
warnings.showwarning = lambda msg, *a, **k: caught.append(str(msg))
from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.conv.gram import gram_matrix
from ntkviz.core.deformations.digits import load_digits
from ntkviz._env import safe_threading_layer
x = load_digits()[0][:4].astype(np.float64) / 255.0
out = []
threads = [threading.Thread(target=lambda: out.append(gram_matrix(x, PRESETS["M3"], "ntk")))
           for _ in range(2)]
for t in threads: t.start()
for t in threads: t.join()
assert len(out) == 2 and np.array_equal(out[0], out[1])
print("layer", safe_threading_layer(), "warnings", len(caught), caught[:1])
"""


def test_workqueue_layer_serialises_parallel_kernels():
    """NUMBA_THREADING_LAYER=workqueue, two threads computing Gram matrices at once: no
    abort (numba's "Concurrent access" rc 134), identical results, one warning."""
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    proc = subprocess.run([sys.executable, "-c", CONCURRENT], capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-400:]}"
    assert "layer None warnings 1" in proc.stdout, proc.stdout
    assert "workqueue" in proc.stdout


@pytest.mark.parametrize("forced, safe", [("workqueue", False), ("omp", True), ("default", True)])
def test_safe_threading_layer(monkeypatch, forced, safe):
    monkeypatch.setenv("NUMBA_THREADING_LAYER", forced)
    monkeypatch.setattr(_env, "_LAYER_STATE", {})
    monkeypatch.setattr(_env, "_layer_available", lambda layer: layer == "omp")
    assert (_env.safe_threading_layer() is not None) is safe
    with _env.parallel_section() if safe else pytest.warns(RuntimeWarning, match="one at a time"):
        if not safe:
            with _env.parallel_section():
                assert _env._PARALLEL_LOCK.locked()
