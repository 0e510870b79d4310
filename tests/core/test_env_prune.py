"""Old numba cache folders prune themselves: when ntkviz makes a cache folder for a new
version or core fingerprint, it removes the ones it made for others, and nothing else."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from ntkviz._env import STALE_AFTER_S, prune_caches


def _folder(path, age_s: float):
    """A numba-like cache folder (a module folder with an index) last written ``age_s`` ago."""
    (path / "ntkviz_core").mkdir(parents=True)
    index = path / "ntkviz_core" / "f.nbi"
    index.write_bytes(b"index")
    then = time.time() - age_s
    for p in (index, path / "ntkviz_core", path):
        os.utime(p, (then, then))
    return path


def test_only_old_folders_of_other_versions_made_by_ntkviz_go(tmp_path):
    old = 2 * STALE_AFTER_S
    cache = tmp_path / "ntkviz"
    current = _folder(cache / "numba-0.1.0-cccccccccc", old)
    gone = {_folder(cache / "numba-0.1.0-aaaaaaaaaa", old),
            _folder(cache / "numba-0.0.9-bbbbbbbbbb", old),
            _folder(cache / "numba-0.1.0-frozen", old)}
    kept = {_folder(cache / "numba-0.1.0-dddddddddd", STALE_AFTER_S / 10),  # in use lately
            _folder(cache / "classify", old), _folder(cache / "context", old),
            _folder(cache / "numba-mine", old), _folder(cache / "numba-0.1.0-ABCDEF1234", old)}
    outside = _folder(tmp_path / "elsewhere", old)
    (cache / "numba-0.1.0-eeeeeeeeee").symlink_to(outside)  # a link: never followed
    (cache / "numba-0.1.0-ffffffffff").write_text("a file, not a folder")
    removed = set(prune_caches(current))
    assert removed == gone
    assert all(not p.exists() for p in gone)
    assert all(p.is_dir() for p in kept | {current, outside})
    assert (outside / "ntkviz_core" / "f.nbi").exists()
    assert (cache / "numba-0.1.0-ffffffffff").is_file()


def test_a_new_cache_folder_prunes_at_start(tmp_path):
    """``import ntkviz`` with no NUMBA_CACHE_DIR makes its folder and prunes old ones; the
    next start (its folder exists) prunes nothing."""
    cache = tmp_path / "ntkviz"
    stale = _folder(cache / "numba-0.0.1-0123456789", 2 * STALE_AFTER_S)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = "import os, ntkviz; print(os.environ['NUMBA_CACHE_DIR'])"
    made = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=True).stdout.strip()
    assert os.path.dirname(made) == str(cache) and os.path.isdir(made)
    assert not stale.exists()
    again = _folder(cache / "numba-0.0.1-9876543210", 2 * STALE_AFTER_S)
    subprocess.run([sys.executable, "-c", code], env=env, timeout=120, check=True,
                   capture_output=True)
    assert again.exists()  # only a folder made now prunes
