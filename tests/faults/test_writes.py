"""A failed write never destroys the user's file. With ``ulimit -f`` (RLIMIT_FSIZE)
below the output's size, the command fails with one line, the old file keeps its
content and no temporary fragment is left beside it."""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from faultlib import SENTINEL, leftovers

LIMIT = 20 * 1024  # bytes: far below the outputs below, far above what the interpreter writes

CASES = [
    ("kernel CSV", ["kernel", "--name", "ntk", "--depth", "3", "--grid", "5000"], "k.csv"),
    ("spectrum CSV", ["spectrum", "--name", "arccos1", "--dim", "3", "--kmax", "2000"], "mu.csv"),
    ("export kernel CSV", ["export", "kernel", "--kernels", "arccos1", "--points", "5001"], "prec.csv"),
    ("export kernel PNG", ["export", "kernel", "--kernels", "arccos1", "--width", "1600"], "k.png"),
    ("export spectrum SVG", ["export", "spectrum", "--kernels", "arccos1", "--kmax", "1000"], "s.svg"),
    ("export training GIF", ["export", "training", "--steps", "20", "--frames", "4", "--width", "300"],
     "t.gif"),
]


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_failed_write_keeps_the_old_file(case, tmp_path):
    _, argv, name = case
    target = tmp_path / name
    target.write_text(SENTINEL)
    before = os.stat(target)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "QT_QPA_PLATFORM": "offscreen"}
    warm = subprocess.run([sys.executable, "-m", "ntkviz", *argv, "--out", str(tmp_path / f"warm{name}")],
                          capture_output=True, text=True, timeout=600, env=env)
    assert warm.returncode == 0, warm.stderr  # compiles the kernels (cache writes) without the limit
    assert (tmp_path / f"warm{name}").stat().st_size > LIMIT  # the case really exceeds the limit
    proc = subprocess.run([sys.executable, "-m", "ntkviz", *argv, "--out", str(target)],
                          capture_output=True, text=True, timeout=600, env=env,
                          preexec_fn=_limit_file_size)
    assert proc.returncode == 2, proc.stderr[-500:]
    assert target.read_text() == SENTINEL
    assert os.stat(target).st_mode == before.st_mode
    assert leftovers(tmp_path) == []
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-500:]
    assert name in lines[0], lines[0]  # names the user's file, not the temporary one


def test_write_error_names_the_target(tmp_path):
    """An OSError while writing the temporary file is reported with the user's path."""
    from ntkviz._io import write_bytes_atomic

    target = tmp_path / "t.bin"

    def fail(tmp):
        raise OSError(27, "File too large", str(tmp))

    from ntkviz._io import atomic_write

    with pytest.raises(OSError) as info:
        atomic_write(target, fail)
    assert info.value.filename == str(target) and info.value.errno == 27
    with pytest.raises(FileNotFoundError) as info:
        write_bytes_atomic(tmp_path / "no" / "t.bin", b"x")
    assert info.value.filename == str(tmp_path / "no" / "t.bin")
    assert leftovers(tmp_path) == []


def test_write_csv_is_atomic_on_a_failing_row(tmp_path):
    """An exception while the rows are produced leaves the target as it was."""
    from ntkviz._io import write_csv

    target = tmp_path / "t.csv"
    target.write_text(SENTINEL)

    def rows():
        yield [1.0, 2.0]
        raise RuntimeError("row generator failed")

    with pytest.raises(RuntimeError):
        write_csv(target, ["a", "b"], rows())
    assert target.read_text() == SENTINEL and leftovers(tmp_path) == []


def test_write_csv_round_trips_floats(tmp_path):
    """Floats are written with repr: every float64 reads back exactly (inf and nan as such)."""
    import csv

    import numpy as np

    from ntkviz._io import write_csv

    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(50) * 10.0 ** rng.integers(-300, 300, 50),
                             [5e-324, np.inf, -np.inf, 0.1, 1 / 3]])
    target = tmp_path / "v.csv"
    write_csv(target, ["x", "i"], ([v, i] for i, v in enumerate(values)))
    with open(target, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["x", "i"]
    np.testing.assert_array_equal([float(r[0]) for r in rows[1:]], values)
    assert [int(r[1]) for r in rows[1:]] == list(range(len(values)))


def test_interrupt_keeps_the_old_file(tmp_path):
    """Ctrl+C (SIGINT) in the middle of a sweep: exit 130, one line, the old file kept."""
    import signal
    import time

    target = tmp_path / "s.csv"
    target.write_text(SENTINEL)
    proc = subprocess.Popen([sys.executable, "-m", "ntkviz", "stability", "--digits", "400", "--seeds", "20",
                             "--out", str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(3.0)
    assert proc.poll() is None, "the sweep ended before the interrupt"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err[-300:]
    assert "Traceback" not in err and "interrupted" in err.splitlines()[-1]
    assert target.read_text() == SENTINEL and leftovers(tmp_path) == []
