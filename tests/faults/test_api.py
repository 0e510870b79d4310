"""Faults below the command line: the Python API's argument errors, a slow case within the
GUI's own ranges (13.13) and concurrent parallel kernels on numba's workqueue layer (13.14)."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest


def test_gram_matrix_with_a_dict_architecture():
    """``gram_matrix(arch=dict)`` says what is wrong (not AttributeError)."""
    from ntkviz.core.conv.gram import gram_matrix

    images = np.zeros((2, 12, 12))
    with pytest.raises((ValueError, TypeError), match="arch"):
        gram_matrix(images, {"layers": []}, "ntk")


def test_slow_spectrum_within_gui_ranges(tmp_path):
    """NTK sigmoid L = 50, β = 2, p = 2, k max = 2000 (inside the GUI's ranges) must not
    take minutes (it took 97 s); the bound here is generous for a loaded 2-core machine."""
    argv = ["spectrum", "--name", "ntk", "--activation", "sigmoid", "--depth", "50", "--bias", "2",
            "--dim", "2", "--kmax", "2000"]
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "ntkviz", *argv, "--out", str(tmp_path / "mu.csv")],
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("still running after 30 s (hung, no progress)")
    assert proc.returncode in (0, 2), proc.stderr[-300:]
    assert time.perf_counter() - start < 30


CONCURRENT = """
import threading
import numpy as np
from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.conv.gram import gram_matrix
from ntkviz.core.deformations.digits import load_digits
x = load_digits()[0][:6].astype(np.float64) / 255.0
out = []
threads = [threading.Thread(target=lambda: out.append(gram_matrix(x, PRESETS["M3"], "ntk"))) for _ in range(3)]
for t in threads: t.start()
for t in threads: t.join()
assert len(out) == 3 and all(np.array_equal(out[0], m) for m in out)
print("ok")
"""


def test_concurrent_gram_on_workqueue_layer():
    """Three threads computing Gram matrices at once with numba's workqueue threading
    layer (what numba falls back to without OpenMP/TBB) must not abort the process."""
    from ntkviz._env import default_cache_dir

    # the app's own (fingerprinted) cache: the compiled engine is reused between test runs
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue", "NUMBA_CACHE_DIR": str(default_cache_dir())}
    proc = subprocess.run([sys.executable, "-c", CONCURRENT], capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-300:]}"
    assert proc.stdout.strip().endswith("ok")
