"""Render assets/icon.svg to the freedesktop hicolor icon set and the GUI's window icon.

Usage (from the repository root, with the project venv)::

    .venv/bin/python scripts/render_icons.py

Writes, for the application id ``io.github.ntkviz.Ntkviz`` (``ntkviz.APP_ID``):

* ``packaging/linux/icons/hicolor/<n>x<n>/apps/<APP_ID>.png`` for n in 48, 128, 256,
* ``packaging/linux/icons/hicolor/scalable/apps/<APP_ID>.svg`` (copy of the source),
* ``ntkviz/resources/<APP_ID>.svg`` (the window icon the GUI loads).

Rendering uses Qt's QSvgRenderer (PySide6, offscreen platform), so the PNGs look
exactly like what Qt draws from the SVG at run time.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "assets" / "icon.svg"
HICOLOR = ROOT / "packaging" / "linux" / "icons" / "hicolor"
RESOURCES = ROOT / "ntkviz" / "resources"
PNG_SIZES = (48, 128, 256)


def app_id() -> str:
    sys.path.insert(0, str(ROOT))
    from ntkviz import APP_ID

    return APP_ID


def render_png(svg: Path, size: int, out: Path) -> None:
    """Render ``svg`` to a square ``size`` × ``size`` RGBA PNG at ``out``."""
    from PySide6 import QtCore, QtGui, QtSvg

    renderer = QtSvg.QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {svg} is not a valid SVG for Qt")
    image = QtGui.QImage(size, size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QtCore.Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(image)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QtCore.QRectF(0, 0, size, size))
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"render_icons: cannot write {out}")


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtGui

    app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication(["render_icons"])  # noqa: F841
    name = app_id()
    written = []
    for size in PNG_SIZES:
        out = HICOLOR / f"{size}x{size}" / "apps" / f"{name}.png"
        render_png(SOURCE, size, out)
        written.append(out)
    for out in (HICOLOR / "scalable" / "apps" / f"{name}.svg", RESOURCES / f"{name}.svg"):
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCE, out)
        written.append(out)
    for path in written:
        print(f"{path.relative_to(ROOT)}  ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
