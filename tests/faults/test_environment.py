"""Hostile environments (kept working well): read-only HOME, cache and TMPDIR, five
cold-cache processes at once, GIF export without Pillow."""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from faultlib import error_line, run_cli

#: the cheapest command that compiles numba kernels (arc-cosine maps)
ARGV = ["kernel", "--name", "arccos1", "--grid", "5"]


def _run(argv, env, timeout=600):
    return subprocess.run([sys.executable, "-m", "ntkviz", *argv], capture_output=True, text=True,
                          timeout=timeout, env=env)


def _read_only(path):
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(stat.S_IRUSR | stat.S_IXUSR)
    return path


@pytest.fixture()
def clean_env(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "TMPDIR")}
    yield env
    for p in tmp_path.rglob("*"):  # let pytest clean up
        if p.is_dir():
            p.chmod(stat.S_IRWXU)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
@pytest.mark.parametrize("where", ["HOME", "XDG_CACHE_HOME", "TMPDIR", "all"])
def test_read_only_folders(where, tmp_path, clean_env):
    ro = _read_only(tmp_path / "ro")
    names = ["HOME", "XDG_CACHE_HOME", "TMPDIR"] if where == "all" else [where]
    env = {**clean_env, **{n: str(ro) for n in names}}
    out = tmp_path / "k.csv"
    proc = _run([*ARGV, "--out", str(out)], env)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "Traceback" not in proc.stderr
    assert out.read_text().count("\n") == 6


def test_read_only_folders_as_root_via_missing_home(tmp_path, clean_env):
    """(Also as root) a HOME, cache and TMPDIR that do not exist and cannot be created."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    env = {**clean_env, "HOME": str(blocker / "home"), "XDG_CACHE_HOME": str(blocker / "cache"),
           "TMPDIR": str(blocker / "tmp")}
    out = tmp_path / "k.csv"
    proc = _run([*ARGV, "--out", str(out)], env)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert out.read_text().count("\n") == 6


def test_five_cold_cache_processes_at_once(tmp_path, clean_env):
    env = {**clean_env, "NUMBA_CACHE_DIR": str(tmp_path / "cold-cache")}
    procs = [subprocess.Popen([sys.executable, "-m", "ntkviz", *ARGV, "--out", str(tmp_path / f"k{i}.csv")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for i in range(5)]
    results = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0] * 5, [r[1][-300:] for r in results]
    texts = {(tmp_path / f"k{i}.csv").read_text() for i in range(5)}
    assert len(texts) == 1  # the same table from every process


def test_gif_without_pillow(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL -> ImportError
    out = tmp_path / "t.gif"
    code, _, err = run_cli(["export", "training", "--steps", "20", "--frames", "2", "--out", out], capsys)
    assert code == 2
    assert "Pillow" in error_line(err)
    assert not out.exists()
