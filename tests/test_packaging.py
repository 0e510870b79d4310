"""Packaging and desktop integration: desktop entry, AppStream file, icons, install
scripts, the numba cache location of an installed app, and a PyInstaller bundle smoke test.

The bundle smoke test builds a bundle only when PyInstaller is importable (CI does not
install it: the test is skipped, with the reason shown by ``pytest -ra``). Set
``NTKVIZ_BUNDLE=<unpacked bundle dir>`` to smoke-test an existing build instead
(``packaging/build_linux.sh`` prints its path).
"""
from __future__ import annotations

import configparser
import importlib.util
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import ntkviz
from ntkviz import APP_ID

ROOT = Path(__file__).resolve().parent.parent
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
HICOLOR = LINUX / "icons" / "hicolor"
ICON_SVG = ROOT / "assets" / "icon.svg"
PNG_SIZES = (48, 128, 256)


def _load_script(name: str):
    """Import ``scripts/<name>.py`` as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _desktop_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def _clean_env(**extra: str) -> dict[str, str]:
    """The current environment without a preset numba cache directory, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(extra)
    return env


# --- desktop entry, AppStream, application id ---------------------------------------------

def _validate_desktop_file(path: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate not installed (Debian package desktop-file-utils)")
    proc = subprocess.run([tool, str(path)], capture_output=True, text=True)
    # It prints errors, warnings and hints; a clean file prints nothing.
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_desktop_entry_validates():
    _validate_desktop_file(DESKTOP)


def test_metainfo_validates():
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli not installed (Debian package appstream)")
    proc = subprocess.run([tool, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_app_id_is_used_consistently():
    entry = _desktop_entry(DESKTOP)
    assert entry["Icon"] == APP_ID
    assert entry["Exec"].split()[0] == entry["TryExec"] == "ntkviz"
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    assert root.find("releases/release").get("version") == ntkviz.__version__
    icons = sorted(p.relative_to(HICOLOR).as_posix() for p in HICOLOR.rglob("*") if p.is_file())
    assert icons == sorted(
        [f"{n}x{n}/apps/{APP_ID}.png" for n in PNG_SIZES] + [f"scalable/apps/{APP_ID}.svg"]
    )
    window_icon = ROOT / "ntkviz" / "resources" / f"{APP_ID}.svg"
    for copy in (window_icon, HICOLOR / "scalable" / "apps" / f"{APP_ID}.svg"):
        assert copy.read_bytes() == ICON_SVG.read_bytes(), f"{copy} is stale: run scripts/render_icons.py"


def test_running_app_uses_app_id_and_icon():
    """The QApplication announces the desktop file name and carries the window icon."""
    code = (
        "from ntkviz.gui.app import create_app, icon_path\n"
        "app = create_app(['ntkviz'])\n"
        "print(app.desktopFileName()); print(icon_path().name)\n"
        "print(app.windowIcon().pixmap(48, 48).isNull())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [APP_ID, f"{APP_ID}.svg", "False"]


# --- icons ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def qt_gui():
    from PySide6 import QtGui

    return QtGui.QGuiApplication.instance() or QtGui.QGuiApplication(["test_packaging"])


@pytest.mark.parametrize("size", PNG_SIZES)
def test_icon_png_sizes_and_freshness(qt_gui, size):
    """Each hicolor PNG has its nominal size, a transparent corner, an opaque tile, and
    matches a fresh rendering of assets/icon.svg (so the PNGs are not stale)."""
    from PySide6 import QtGui

    path = HICOLOR / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
    committed = QtGui.QImage(str(path))
    assert (committed.width(), committed.height()) == (size, size)
    assert committed.hasAlphaChannel()
    assert committed.pixelColor(0, 0).alpha() == 0
    assert committed.pixelColor(size // 2, size // 2).alpha() == 255

    fresh_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"ntkviz-icon-test-{os.getpid()}-{size}.png"
    try:
        _load_script("render_icons").render_png(ICON_SVG, size, fresh_path)
        fresh = QtGui.QImage(str(fresh_path))
    finally:
        fresh_path.unlink(missing_ok=True)
    fmt = QtGui.QImage.Format.Format_RGBA8888
    # keep the converted images alive: constBits() points into their buffers
    committed_rgba, fresh_rgba = committed.convertToFormat(fmt), fresh.convertToFormat(fmt)
    a = bytes(committed_rgba.constBits())
    b = bytes(fresh_rgba.constBits())
    worst = max(abs(x - y) for x, y in zip(a, b))
    assert len(a) == len(b) and worst <= 2, f"{path} differs from assets/icon.svg: run scripts/render_icons.py"


def test_icon_svg_is_square_and_valid(qt_gui):
    from PySide6 import QtSvg

    renderer = QtSvg.QSvgRenderer(str(ICON_SVG))
    assert renderer.isValid()
    box = renderer.viewBoxF()
    assert box.width() == box.height() > 0


# --- install.sh / uninstall.sh on a stand-in bundle -----------------------------------------

def _fake_bundle(folder: Path) -> Path:
    """The layout build_linux.sh stages, with a shell script standing in for the executable."""
    (folder / "share" / "applications").mkdir(parents=True)
    (folder / "share" / "metainfo").mkdir()
    shutil.copy(DESKTOP, folder / "share" / "applications")
    shutil.copy(METAINFO, folder / "share" / "metainfo")
    shutil.copytree(HICOLOR, folder / "share" / "icons" / "hicolor")
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy(LINUX / script, folder / script)
    exe = folder / "ntkviz"
    exe.write_text("#!/bin/sh\necho fake ntkviz\n")
    exe.chmod(0o755)
    return exe


def test_install_and_uninstall_scripts(tmp_path):
    bundle = tmp_path / "apps dir" / "ntkviz-test-bundle"  # a space in the path, on purpose
    exe = _fake_bundle(bundle)
    data, home, bindir = tmp_path / "data", tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_DATA_HOME=str(data), NTKVIZ_BIN_DIR=str(bindir),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    subprocess.run(["bash", str(bundle / "install.sh")], check=True, env=env, capture_output=True)

    launcher = data / "applications" / f"{APP_ID}.desktop"
    entry = _desktop_entry(launcher)
    assert entry["Exec"] == f'"{exe.resolve()}"'
    assert entry["TryExec"] == str(exe.resolve())
    assert entry["Icon"] == APP_ID
    if shutil.which("desktop-file-validate"):
        _validate_desktop_file(launcher)
    installed = sorted(p.relative_to(data / "icons").as_posix()
                       for p in (data / "icons").rglob(f"{APP_ID}.*"))
    expected = sorted(p.relative_to(HICOLOR.parent).as_posix() for p in HICOLOR.rglob("*") if p.is_file())
    assert installed == expected
    assert (data / "metainfo" / METAINFO.name).read_bytes() == METAINFO.read_bytes()
    assert (bindir / "ntkviz").resolve() == exe.resolve()

    (tmp_path / "config" / "ntkviz").mkdir(parents=True)
    (tmp_path / "cache" / "ntkviz").mkdir(parents=True)
    subprocess.run(["bash", str(bundle / "uninstall.sh"), "--purge"], check=True, env=env,
                   capture_output=True)
    leftovers = [p for p in data.rglob("*") if p.is_file() and APP_ID in p.name]
    assert leftovers == [] and not (bindir / "ntkviz").exists()
    assert not (tmp_path / "config" / "ntkviz").exists() and not (tmp_path / "cache" / "ntkviz").exists()
    assert exe.is_file(), "uninstall.sh must leave the bundle folder alone"


def test_install_refuses_a_folder_without_bundle(tmp_path):
    shutil.copy(LINUX / "install.sh", tmp_path / "install.sh")
    proc = subprocess.run(["bash", str(tmp_path / "install.sh")], capture_output=True, text=True,
                          env=dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "d")))
    assert proc.returncode == 1 and "unpacked ntkviz bundle" in proc.stderr
    assert not (tmp_path / "d").exists()


# --- numba cache of an installed app --------------------------------------------------------

_KERNEL_CALL = (
    "import os, numpy as np, ntkviz.core as c\n"
    "v, d = c.evaluate_kernel(c.KernelSpec(name='arccos1'), np.array([-1.0, 0.0, 1.0]))\n"
    "print(os.environ['NUMBA_CACHE_DIR']); print(repr(float(v[1])))\n"
)


def _run_kernel_call(env: dict[str, str], cwd: Path) -> tuple[Path, float]:
    """Run the installed package in a fresh interpreter started in ``cwd``: a neutral folder,
    never the clone's parent, where a clone named ``ntkviz`` would be imported instead (a
    namespace package that skips ntkviz's start-up)."""
    import ntkviz.core

    if not hasattr(ntkviz.core, "evaluate_kernel"):
        pytest.skip("ntkviz.core.evaluate_kernel is not available yet")
    proc = subprocess.run([sys.executable, "-c", _KERNEL_CALL], capture_output=True, text=True,
                          env=env, timeout=300, cwd=str(cwd))
    assert proc.returncode == 0, proc.stderr
    cache_dir, value = proc.stdout.split()
    return Path(cache_dir), float(value)


def _index_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.nbi"))


def test_numba_cache_defaults_to_versioned_dir_under_cache_home(tmp_path):
    """With NUMBA_CACHE_DIR unset, compiled kernels land in
    $XDG_CACHE_HOME/ntkviz/numba-<version>-<fingerprint>, and a second process reuses them."""
    cache_home = tmp_path / "cache"
    env = _clean_env(XDG_CACHE_HOME=str(cache_home), HOME=str(tmp_path))
    cache_dir, value = _run_kernel_call(env, tmp_path)
    assert value == pytest.approx(1 / 3.141592653589793, rel=1e-12)  # κ1(0) = 1/π
    assert cache_dir.parent == cache_home / "ntkviz"
    assert cache_dir.name.startswith(f"numba-{ntkviz.__version__}-")
    first = _index_files(cache_dir)
    assert first, "numba wrote no cache index under the default directory"
    stamps = {p: p.stat().st_mtime_ns for p in first}

    again, _ = _run_kernel_call(env, tmp_path)
    assert again == cache_dir
    assert {p: p.stat().st_mtime_ns for p in _index_files(cache_dir)} == stamps  # pure cache hits


def test_numba_cache_falls_back_when_cache_home_is_unusable(tmp_path):
    """A cache home that cannot be created (here below a regular file, which fails even for
    root) must not break ``import ntkviz.core`` (numba raises at import when no cache
    location is writable): the cache goes to a per-user temporary folder instead."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = _clean_env(XDG_CACHE_HOME=str(blocker / "cache"), HOME=str(blocker), TMPDIR=str(tmp))
    code = "import os, ntkviz.core; print(os.environ['NUMBA_CACHE_DIR'])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300, cwd=str(tmp))  # neutral: see _run_kernel_call
    assert proc.returncode == 0, proc.stderr
    cache_dir = Path(proc.stdout.strip())
    assert tmp in cache_dir.parents and cache_dir.is_dir() and os.access(cache_dir, os.W_OK)
    assert cache_dir.name.startswith(f"numba-{ntkviz.__version__}-")


def test_frozen_cache_locator_uses_numba_cache_dir(tmp_path, monkeypatch):
    """The bundle's numba locator (packaging/pyinstaller/ntkviz_frozen_cache.py) caches a
    function whose byte code carries PyInstaller's relative file name, and whose source file
    does not exist, into NUMBA_CACHE_DIR, independent of the working directory."""
    from numba.core import config

    spec = importlib.util.spec_from_file_location(
        "ntkviz_frozen_cache", ROOT / "packaging" / "pyinstaller" / "ntkviz_frozen_cache.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    namespace: dict = {}
    exec(compile("def kernel(x):\n    return x + 1\n", "ntkviz/core/fake.py", "exec"), namespace)
    func = namespace["kernel"]

    monkeypatch.setattr(sys, "frozen", True, raising=False)  # numba then stamps by sys.executable
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    locator = module.FrozenCacheLocator.from_function(func, "ntkviz/core/fake.py")
    assert locator is not None
    assert Path(locator.get_cache_path()) == tmp_path / "cache" / "ntkviz_core"
    assert locator.get_source_stamp()  # hash of the executable, which embeds the byte code
    monkeypatch.chdir(ROOT)
    assert module.FrozenCacheLocator.from_function(func, "ntkviz/core/fake.py").get_cache_path() \
        == locator.get_cache_path()

    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(config, "CACHE_DIR", str(blocker / "cache"))  # cannot be created
    assert module.FrozenCacheLocator.from_function(func, "ntkviz/core/fake.py") is None
    monkeypatch.setattr(config, "CACHE_DIR", "")
    assert module.FrozenCacheLocator.from_function(func, "ntkviz/core/fake.py") is None


def test_runtime_hook_selects_the_frozen_locator():
    hook = (ROOT / "packaging" / "pyinstaller" / "rthook_ntkviz.py").read_text()
    spec_text = (ROOT / "packaging" / "pyinstaller" / "ntkviz.spec").read_text()
    assert "ntkviz_frozen_cache.FrozenCacheLocator" in hook and "NUMBA_CACHE_LOCATOR_CLASSES" in hook
    assert '"ntkviz_frozen_cache"' in spec_text and "rthook_ntkviz.py" in spec_text


# --- PyInstaller bundle ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    preset = os.environ.get("NTKVIZ_BUNDLE")
    if preset:
        return Path(preset).resolve()
    if importlib.util.find_spec("PyInstaller") is None:
        reason = ("PyInstaller is not installed; the bundle is built by packaging/build_linux.sh "
                  "(set NTKVIZ_BUNDLE=<bundle dir> to smoke-test an existing build)")
        print(f"SKIP bundle smoke test: {reason}")
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("pyinstaller")
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
                    "--distpath", str(work / "dist"), "--workpath", str(work / "work"),
                    str(ROOT / "packaging" / "pyinstaller" / "ntkviz.spec")],
                   check=True, capture_output=True, timeout=1200)
    return work / "dist" / "ntkviz"


@pytest.mark.timeout(1500)
def test_bundle_smoke(bundle, tmp_path):
    """The frozen app reports its version, computes a kernel (numba cache in the user's
    cache home, not in the read-only bundle) and renders its main window offscreen."""
    exe = bundle / "ntkviz"
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "QT_QPA_PLATFORM": "offscreen",
           "LANG": "C.UTF-8", "XDG_CACHE_HOME": str(home / ".cache")}
    run = lambda *args: subprocess.run([str(exe), *args], capture_output=True, text=True,  # noqa: E731
                                       env=env, cwd=str(home), timeout=300)
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"ntkviz {ntkviz.__version__}", proc.stderr

    csv = tmp_path / "kernel.csv"
    proc = run("export", "kernel", "--kernels", "ntk", "--depth", "3", "--points", "11", "--out", str(csv))
    assert proc.returncode == 0, proc.stderr
    assert csv.stat().st_size > 0
    # numba's own locators would ignore NUMBA_CACHE_DIR in a frozen app (ntkviz_frozen_cache.py)
    cached = _index_files(home / ".cache")
    assert cached, "the frozen app did not cache its numba kernels"
    assert all(p.is_relative_to(home / ".cache" / "ntkviz") for p in cached), cached
    assert all(p.parent.parent.name.startswith(f"numba-{ntkviz.__version__}-") for p in cached)

    shot = tmp_path / "shot.png"
    proc = run("gui", "--screenshot", str(shot))
    assert proc.returncode == 0, proc.stderr
    from PySide6 import QtGui

    image = QtGui.QImage(str(shot))
    assert image.width() >= 400 and image.height() >= 100
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 20, "the screenshot is (nearly) uniform: nothing was drawn"
