"""Export a plot item to PNG / SVG and a panel's data to CSV.

Exporting is a function of a pyqtgraph item, not of a window, so the GUI's
File → Export…, the headless ``ntkviz export`` command and the tests share
these functions (design.md §4.10).

SVG on Qt >= 6.11: ``QSvgGenerator`` now closes sub-paths with a ``Z`` token,
which pyqtgraph 0.14's path-coordinate parser (``correctCoordinates`` in
``pyqtgraph.exporters.SVGExporter``) cannot read (pyqtgraph issue #3495,
docs/stack.md §3.1). :func:`install_svg_workaround` wraps that function: it
removes the ``Z`` tokens before the original runs and puts them back, at the
same place, afterwards. On older Qt no ``Z`` appears and the wrapper is inert.
"""
from __future__ import annotations

import csv
import importlib
import re
from pathlib import Path
from typing import Sequence

from pyqtgraph import exporters

__all__ = ["export_plot", "render_image", "svg_string", "write_csv_table",
           "install_svg_workaround", "EXPORT_SUFFIXES"]

EXPORT_SUFFIXES = (".png", ".svg", ".csv")
_CLOSE = re.compile(r"^[Zz]$")


def _strip_close_tokens(node) -> list[tuple[object, list[int]]]:
    """Remove ``Z``/``z`` tokens from every ``<path d=…>`` under ``node``.

    Returns ``[(path_element, positions)]`` where ``positions`` are the indices of
    the coordinate tokens after which a close token stood."""
    removed = []
    for path in node.getElementsByTagName("path"):
        d = path.getAttribute("d")
        if "Z" not in d and "z" not in d:
            continue
        tokens = d.replace("Z", " Z ").replace("z", " z ").split()
        kept, positions = [], []
        for tok in tokens:
            if _CLOSE.match(tok):
                positions.append(len(kept) - 1)
            else:
                kept.append(tok)
        path.setAttribute("d", " ".join(kept))
        removed.append((path, positions))
    return removed


def _restore_close_tokens(removed) -> None:
    for path, positions in removed:
        tokens = path.getAttribute("d").split()
        for pos in sorted(positions, reverse=True):
            tokens.insert(pos + 1, "Z")
        path.setAttribute("d", " ".join(tokens))


def install_svg_workaround() -> None:
    """Make pyqtgraph's SVG exporter work on Qt >= 6.11 (idempotent)."""
    mod = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    original = mod.correctCoordinates
    if getattr(original, "_ntkviz_patched", False):
        return

    def correct_coordinates(node, defs, item, options):
        removed = _strip_close_tokens(node)
        original(node, defs, item, options)
        _restore_close_tokens(removed)

    correct_coordinates._ntkviz_patched = True
    mod.correctCoordinates = correct_coordinates


def _suffix(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise ValueError(f"export file must end in one of {', '.join(EXPORT_SUFFIXES)}; "
                         f"got {Path(path).name!r}")
    return suffix


def render_image(item, width: int | None = None):
    """Render ``item`` (PlotItem / GraphicsLayout) to a ``QImage``; ``width`` in pixels
    (height keeps the on-screen aspect ratio; default: the on-screen size)."""
    exp = exporters.ImageExporter(item)
    if width is not None:
        width = int(width)
        if not 16 <= width <= 20000:
            raise ValueError(f"width must be in [16, 20000] pixels, got {width}")
        exp.parameters()["width"] = width
    return exp.export(toBytes=True)


def svg_string(item) -> str:
    """The SVG document of ``item`` (with the Qt >= 6.11 workaround)."""
    install_svg_workaround()
    return exporters.SVGExporter(item).export(toBytes=True).decode("utf-8")


def export_plot(item, path, width: int | None = None) -> Path:
    """Write ``item`` to ``path`` (``.png`` at ``width`` pixels, or ``.svg``)."""
    path = Path(path)
    suffix = _suffix(path)
    if suffix == ".png":
        image = render_image(item, width)
        if not image.save(str(path), "PNG"):
            raise OSError(f"cannot write {path}")
    elif suffix == ".svg":
        path.write_text(svg_string(item), encoding="utf-8")
    else:
        raise ValueError("a plot exports to .png or .svg; use write_csv_table for .csv")
    return path


def write_csv_table(path, header: Sequence[str], rows) -> Path:
    """Write ``header`` and ``rows`` as CSV; floats in full precision (``repr``)."""
    path = Path(path)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(list(header))
        for row in rows:
            w.writerow([repr(float(v)) if isinstance(v, float) else v for v in row])
    return path

