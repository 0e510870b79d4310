"""The test suite never writes into the user's caches: the tests and every process they
start (also one started without XDG_CACHE_HOME or NUMBA_CACHE_DIR) keep numba's kernels
and computed results in temporary folders (tests/conftest.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: prints where a fresh ntkviz process keeps numba's kernels and the computed results
PROBE = ("import os, ntkviz\n"
         "from ntkviz.models.classification import default_cache_dir\n"
         "print(os.environ['NUMBA_CACHE_DIR'])\n"
         "print(default_cache_dir())\n")


def _inside(path: Path, folder: Path) -> bool:
    return Path(path).resolve().is_relative_to(folder.resolve())


def _probe(env: dict) -> list[Path]:
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return [Path(line) for line in proc.stdout.splitlines()]


def test_this_process_uses_temporary_caches(user_cache_folder):
    from ntkviz._env import default_cache_dir

    for path in (os.environ["NUMBA_CACHE_DIR"], os.environ["XDG_CACHE_HOME"],
                 Path.home(), default_cache_dir()):
        assert not _inside(path, user_cache_folder.parent), path


@pytest.mark.parametrize("removed", [(), ("NUMBA_CACHE_DIR",),
                                     ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")])
def test_a_started_process_uses_temporary_caches(removed, user_cache_folder, tmp_path):
    """Inherited environment; without NUMBA_CACHE_DIR ntkviz makes its default cache
    folder, and without XDG_CACHE_HOME too that folder is under HOME: the temporary one."""
    env = {k: v for k, v in os.environ.items() if k not in removed}
    numba_dir, results_dir = _probe(env)
    for path in (numba_dir, results_dir):
        assert not _inside(path, user_cache_folder.parent), path
        assert _inside(path, Path(os.environ["XDG_CACHE_HOME"])) or \
            _inside(path, Path(os.environ["HOME"])) or \
            _inside(path, Path(os.environ["NUMBA_CACHE_DIR"])), path
    if "XDG_CACHE_HOME" in removed:
        assert _inside(numba_dir, Path(os.environ["HOME"]) / ".cache" / "ntkviz")
