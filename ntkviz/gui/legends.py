"""Where legends go: the corner of a plot that covers the fewest data points.

:func:`place_legend` puts a floating legend in that corner; exports lay a figure out
again at their size and call :func:`replace_legends`. The legend's look is
:func:`ntkviz.gui.plot_style.style_legend`.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from ntkviz.gui.plot_style import is_transient

__all__ = ["place_legend", "replace_legends"]


#: corners tried by :func:`place_legend`, in order of preference: (item anchor, parent anchor)
_CORNERS = (((1, 0), (1, 0)), ((0, 0), (0, 0)), ((1, 1), (1, 1)), ((0, 1), (0, 1)))
_MARGIN_PX = 8.0


def _data_pixels(view_box) -> np.ndarray:
    """Pixel positions (in ``view_box`` coordinates) of everything plotted in it:
    the points of curves and scatters, their segments sampled every ~4 px, and the
    area of filled bands. Shape ``(n, 2)``."""
    rect = view_box.viewRect()
    w, h = view_box.width(), view_box.height()
    if not (rect.width() > 0 and rect.height() > 0 and w > 0 and h > 0):
        return np.empty((0, 2))
    chunks = []
    for item in view_box.addedItems:
        if not item.isVisible() or is_transient(item):
            continue
        if isinstance(item, pg.FillBetweenItem):
            curves = [c for c in (getattr(item, "curves", None) or []) if c is not None]
            data = [c.getData() for c in curves]
            if len(data) == 2 and data[0][0] is not None and data[1][0] is not None:
                (x1, y1), (x2, y2) = data
                n = min(len(x1), len(x2))
                t = np.linspace(0.0, 1.0, 9)[:, None]
                xs = (x1[:n] * (1 - t) + x2[:n] * t).ravel()
                ys = (y1[:n] * (1 - t) + y2[:n] * t).ravel()
                chunks.append((xs, ys, False))
            continue
        if not hasattr(item, "getData"):
            continue
        x, y = item.getData()
        if x is None or y is None or len(x) == 0:
            continue
        joined = isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)) and (
            not isinstance(item, pg.PlotDataItem) or item.opts.get("pen") is not None)
        chunks.append((np.asarray(x, float), np.asarray(y, float), joined))
    pts = []
    for x, y, joined in chunks:
        px = (x - rect.left()) / rect.width() * w
        py = (rect.bottom() - y) / rect.height() * h  # view y grows upwards
        ok = np.isfinite(px) & np.isfinite(py)
        if joined and ok.sum() > 1:
            px, py = px[ok], py[ok]
            seg = np.hypot(np.diff(px), np.diff(py))
            steps = np.clip(np.ceil(seg / 4.0), 1, 200).astype(int)
            start = np.repeat(np.arange(len(seg)), steps)
            frac = np.concatenate([np.arange(k) / k for k in steps])
            px = np.append(px[start] + frac * np.diff(px)[start], px[-1])
            py = np.append(py[start] + frac * np.diff(py)[start], py[-1])
        else:
            px, py = px[ok], py[ok]
        pts.append(np.column_stack([px, py]))
    return np.concatenate(pts) if pts else np.empty((0, 2))


def place_legend(plot) -> tuple | None:
    """Put the legend of ``plot`` (``PlotWidget`` or ``PlotItem``) in the corner of the
    plot area where it covers the fewest plotted points (curves sampled along their
    segments, bands by their area; ties: top right, top left, bottom right, bottom
    left). Returns the chosen ``(item anchor, parent anchor)`` or ``None`` without a
    legend. Call it after the data change; exports call it again at the export size."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    legend = item.legend
    if legend is None or not legend.items:
        return None
    legend._ntkviz_auto_place = True
    vb = item.getViewBox()
    pts = _data_pixels(vb)
    lw, lh = legend.boundingRect().width(), legend.boundingRect().height()
    w, h = vb.width(), vb.height()
    best, best_count = _CORNERS[0], None
    for corner in _CORNERS:
        (ax, ay), _ = corner
        x0 = _MARGIN_PX if ax == 0 else w - _MARGIN_PX - lw
        y0 = _MARGIN_PX if ay == 0 else h - _MARGIN_PX - lh
        if len(pts):
            inside = ((pts[:, 0] >= x0 - 2) & (pts[:, 0] <= x0 + lw + 2)
                      & (pts[:, 1] >= y0 - 2) & (pts[:, 1] <= y0 + lh + 2))
            count = int(inside.sum())
        else:
            count = 0
        if best_count is None or count < best_count:
            best, best_count = corner, count
        if count == 0:
            break
    (ax, ay), parent = best
    offset = (_MARGIN_PX if ax == 0 else -_MARGIN_PX, _MARGIN_PX if ay == 0 else -_MARGIN_PX)
    legend.anchor(itemPos=(ax, ay), parentPos=parent, offset=offset)
    return best


def replace_legends(root) -> None:
    """Re-run :func:`place_legend` for every auto-placed legend under ``root`` (after
    a re-layout, e.g. at an export size)."""
    stack = [root]
    while stack:
        it = stack.pop()
        stack.extend(it.childItems())
        if isinstance(it, pg.PlotItem) and getattr(it.legend, "_ntkviz_auto_place", False):
            place_legend(it)

