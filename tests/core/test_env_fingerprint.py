"""The numba cache folder's fingerprint covers every concept folder of the core."""
import os

from ntkviz._env import _core_fingerprint


def _tree(root):
    (root / "conv").mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n")
    (root / "conv" / "_kernels.py").write_text("y = 2\n")
    return root


def test_an_edit_in_a_subfolder_changes_the_fingerprint(tmp_path):
    core = _tree(tmp_path / "core")
    before = _core_fingerprint(core)
    assert _core_fingerprint(core) == before
    (core / "conv" / "_kernels.py").write_text("y = 22\n")  # another size
    assert _core_fingerprint(core) != before


def test_a_newer_file_in_a_subfolder_changes_the_fingerprint(tmp_path):
    core = _tree(tmp_path / "core")
    before = _core_fingerprint(core)
    f = core / "conv" / "_kernels.py"
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert _core_fingerprint(core) != before


def test_moving_a_file_to_another_folder_changes_the_fingerprint(tmp_path):
    core = _tree(tmp_path / "core")
    before = _core_fingerprint(core)
    (core / "kernels").mkdir()
    os.rename(core / "conv" / "_kernels.py", core / "kernels" / "_kernels.py")  # same name, size, mtime
    assert _core_fingerprint(core) != before
