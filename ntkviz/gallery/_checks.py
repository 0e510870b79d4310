"""What can be checked of a figure without looking at it.

Each function returns a list of problems (one line each; empty: nothing found).

* :func:`svg_problems`: no scale-factor text such as ``(x1e+27)`` or ``(x0.001)``
  in any ``<text>``; grid lines (long axis lines) come before the curves in
  document order, as on screen.
* :func:`png_problems`: the image has the size asked for.
* :func:`layout_problems`: laid out at the export size, every text item (titles,
  axis titles, legend entries, labels) lies inside the figure, every visible
  axis that shows values has at least three labelled ticks (an axis of named
  categories shows its categories; an empty view, none, and says why), no axis
  title overlaps its tick labels, no grid is drawn over the data, and
  :func:`figure_problems`.
* :func:`figure_problems`: the figure says what it plots — a plot that declares
  its quantity (:func:`ntkviz.gui.plot_style.declare_quantity`) names it in its
  title or an axis title and draws guide lines only at the declared levels; no
  category of a bar chart is drawn as bars of height 0 or NaN (a value that does not
  exist is left out); tick labels do not overlap and write ``m·10ⁿ`` with
  1 ≤ m < 10 (never ``0.1·10⁴``); legends take at most :data:`LEGEND_SHARE` of the
  plot area.
"""
from __future__ import annotations

import re
from xml.etree import ElementTree

__all__ = ["svg_problems", "png_problems", "layout_problems", "figure_problems",
           "SCALE_FACTOR", "LEGEND_SHARE"]

#: pyqtgraph's SI scale-factor suffix of an axis title, e.g. "(x1e+27)", "(x0.001)"
SCALE_FACTOR = re.compile(r"\(\s*[x×]\s*[0-9]")
_SVG = "{http://www.w3.org/2000/svg}"
#: an axis line at least this long (SVG user units) is a grid line, not a tick mark
_GRID_MIN_LENGTH = 120.0
#: largest area of a figure's legends, as a share of the area of its plots' data
LEGEND_SHARE = 0.5
#: a tick label ``m·10ⁿ`` (its mantissa m, with a sign)
_MANTISSA = re.compile(r"^\s*([-−]?[0-9]+(?:\.[0-9]*)?)\s*·\s*10")


def _texts(root) -> list[str]:
    return ["".join(el.itertext()) for el in root.iter(_SVG + "text")]


def _draws_grid(group) -> bool:
    """An axis group draws grid lines: at least three long lines (its spine is one;
    tick marks, even across a colour bar, are short)."""
    long_lines = 0
    for el in group.iter(_SVG + "polyline"):
        nums = [float(v) for v in re.findall(r"-?[0-9.]+(?:e-?[0-9]+)?", el.get("points", ""))]
        if len(nums) >= 4:
            xs, ys = nums[0::2], nums[1::2]
            long_lines += max(max(xs) - min(xs), max(ys) - min(ys)) >= _GRID_MIN_LENGTH
    return long_lines >= 3


def svg_problems(text: str) -> list[str]:
    """Problems of an SVG document exported by ntkviz."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        return [f"not a valid SVG document ({exc})"]
    problems = [f"scale factor in text {t!r}" for t in _texts(root) if SCALE_FACTOR.search(t)]
    for parent in root.iter(_SVG + "g"):
        ids = [c.get("id", "") for c in parent if c.tag == _SVG + "g"]
        views = [i for i, name in enumerate(ids) if name.startswith("ViewBox")]
        grids = [i for i, name in enumerate(ids) if "Axis" in name and i in _grid_axes(parent)]
        problems += [f"grid of {ids[i]} drawn after the curves of {ids[views[0]]}"
                     for i in grids if views and i > views[0]]
    return problems


def _grid_axes(parent) -> set[int]:
    """Indices of the child groups of ``parent`` that draw grid lines: lines across
    the whole plot area in both directions' extent (wider than 60 % of the
    document), several of them."""
    children = [c for c in parent if c.tag == _SVG + "g"]
    out = set()
    for i, group in enumerate(children):
        if _draws_grid(group):
            out.add(i)
    return out


def png_problems(path, width: int, height: int | None) -> list[str]:
    """The PNG at ``path`` is ``width`` wide (and ``height`` high if given)."""
    from PySide6 import QtGui

    image = QtGui.QImage(str(path))
    if image.isNull():
        return [f"{path}: not a readable PNG"]
    got = (image.width(), image.height())
    if got[0] != width or (height is not None and got[1] != height):
        return [f"PNG is {got[0]}×{got[1]}, asked for {width}×{height or '(aspect)'}"]
    return []


def _tick_labels(axis, painter) -> list[tuple]:
    """``(scene rect, text)`` of every tick label the axis draws."""
    specs = axis.generateDrawSpecs(painter)
    if specs is None:
        return []
    return [(axis.mapRectToScene(rect), text) for rect, _flags, text in specs[2] if text.strip()]


def layout_problems(item, width: int | None = None, height: int | None = None) -> list[str]:
    """Problems of ``item`` laid out as for an export at ``width``×``height``."""
    import pyqtgraph as pg
    from PySide6 import QtWidgets

    from ntkviz.gui.export import _scene_items, export_geometry, export_layout, measuring_painter
    from ntkviz.gui.plot_style import has_data

    w, h, scale = export_geometry(item, width, height)
    problems = []
    with export_layout(item, (w / scale, h / scale)):
        frame = item.sceneBoundingRect().adjusted(-0.5, -0.5, 0.5, 0.5)
        with measuring_painter() as painter:
            for it in _scene_items(item):
                if not it.isVisible() or not _shown(it):
                    continue
                if isinstance(it, QtWidgets.QGraphicsTextItem) and it.toPlainText().strip():
                    margin = it.document().documentMargin()
                    rect = it.sceneBoundingRect().adjusted(margin, margin, -margin, -margin)
                    if not frame.contains(rect):
                        problems.append(f"text {it.toPlainText().strip()!r} outside the figure "
                                        f"at {w}×{h}")
                elif isinstance(it, pg.AxisItem) and it.grid is not False and _over_data(it):
                    problems.append(f"grid of the {it.orientation} axis drawn over the data "
                                    f"(use ntkviz.gui.plot_style.grid_below)")
                if isinstance(it, pg.PlotDataItem) and not _inside_view(it):
                    problems.append(f"curve {it.name() or '(unnamed)'!r} reaches beyond its "
                                    f"plot's range at {w}×{h}")
                if isinstance(it, pg.AxisItem) and it.style.get("showValues", True):
                    if it.height() < 2 or it.width() < 2:
                        continue
                    ticks = _tick_labels(it, painter)
                    labels = [text for _, text in ticks]
                    view = it.linkedView()
                    if view is not None and not has_data(view):
                        if not _says_why(view):
                            problems.append(f"{it.orientation} axis of an empty plot that says "
                                            f"nothing at {w}×{h}")
                    elif it._tickLevels is None and len(labels) < 3:
                        problems.append(f"{it.orientation} axis has {len(labels)} labelled ticks "
                                        f"{labels} at {w}×{h} (at least 3 wanted)")
                    title = it.label
                    if title.isVisible() and title.toPlainText().strip():
                        m = title.document().documentMargin()
                        trect = title.sceneBoundingRect().adjusted(m, m, -m, -m)
                        hit = [text for rect, text in ticks if rect.intersects(trect)]
                        if hit:
                            problems.append(f"{it.orientation} axis title "
                                            f"{title.toPlainText().strip()!r} overlaps the tick "
                                            f"labels {hit} at {w}×{h}")
        problems += [f"{p} at {w}×{h}" for p in figure_problems(item)]
    return problems


def _says_why(view) -> bool:
    """An empty view shows a note (``computing…``, or why nothing is drawn)."""
    import pyqtgraph as pg

    from ntkviz.gui.plot_style import EmptyNote

    return any(c.isVisible() and (isinstance(c, EmptyNote) and c.shown() or isinstance(
        c, pg.TextItem) and c.textItem.toPlainText().strip()) for c in view.childItems())


def figure_problems(item) -> list[str]:
    """What the figure ``item`` (as laid out now) says against what it draws: see the
    module notes (declared quantity, bars of values that do not exist, tick labels,
    legend area)."""
    from ntkviz.gui.export import _scene_items

    items = _scene_items(item)
    problems = []
    for check in (_quantity_problems, _bar_problems, _tick_problems):
        for it in items:
            problems += check(it)
    return problems + _legend_problems(items)


def _quantity_problems(plot) -> list[str]:
    """A plot declaring its quantity names it in its title or an axis title, and its
    horizontal guide lines are at the declared levels."""
    import pyqtgraph as pg

    from ntkviz.gui.plot_style import declared_quantity, plain_text

    if not isinstance(plot, pg.PlotItem) or declared_quantity(plot) is None:
        return []
    quantity, levels = declared_quantity(plot)
    texts = [plain_text(plot.titleLabel.text)] + [plain_text(plot.getAxis(side).labelText)
                                                  for side in ("left", "bottom")]
    problems = []
    if not any(quantity in t for t in texts):
        problems.append(f"the plot {texts[0]!r} draws {quantity!r} but neither its title nor an "
                        f"axis title names it")
    if levels is not None:
        drawn = sorted({round(float(line.value()), 9) for line in plot.getViewBox().addedItems
                        if isinstance(line, pg.InfiniteLine) and line.angle % 180 == 0
                        and line.isVisible()})
        wrong = [v for v in drawn if not any(abs(v - want) < 1e-9 for want in levels)]
        if wrong:
            problems.append(f"guide lines of {texts[0]!r} at {wrong}, not at the levels of "
                            f"{quantity!r} {list(levels)}")
    return problems


def _bar_problems(plot) -> list[str]:
    """No bar of height NaN, and no category of a bar chart (a named tick of its x axis)
    whose bars are all of height 0: a value that does not exist is left out, not drawn
    as zero."""
    import numpy as np
    import pyqtgraph as pg

    if not isinstance(plot, pg.PlotItem):
        return []
    bars = [b for b in plot.getViewBox().addedItems
            if isinstance(b, pg.BarGraphItem) and b.isVisible()]
    if not bars:
        return []
    problems = []
    xs, hs = [], []
    for b in bars:
        x = np.atleast_1d(np.asarray(b.opts.get("x", b.opts.get("x0")), dtype=float))
        h = np.atleast_1d(np.asarray(b.opts.get("height"), dtype=float))
        if np.isnan(h).any():
            problems.append(f"bars of {b.name() or 'a bar chart'!r} with NaN heights")
        xs.append(x)
        hs.append(np.nan_to_num(h))
    x, h = np.concatenate(xs), np.concatenate(hs)
    axis = plot.getAxis("bottom")
    named = [(pos, text) for pos, text in (axis._tickLevels or [[]])[0]
             if isinstance(text, str) and text.strip()]
    for pos, text in named:
        group = np.abs(x - pos) < 0.5
        if group.any() and not (h[group] != 0).any():
            problems.append(f"the bars of {text!r} are all of height 0 (a value that does not "
                            f"exist is drawn as zero?)")
    return problems


def _tick_problems(axis) -> list[str]:
    """Tick labels of a visible axis: ``m·10ⁿ`` with 1 ≤ |m| < 10, and no two overlapping."""
    import pyqtgraph as pg

    from ntkviz.gui.export import measuring_painter

    if not isinstance(axis, pg.AxisItem) or not _shown(axis) or axis.width() < 2 \
            or axis.height() < 2 or not axis.style.get("showValues", True):
        return []
    with measuring_painter() as painter:
        ticks = _tick_labels(axis, painter)
    problems = []
    for _, text in ticks:
        m = _MANTISSA.match(text)
        if m and not 1.0 <= abs(float(m.group(1).replace("−", "-"))) < 10.0:
            problems.append(f"{axis.orientation} tick label {text!r}: a mantissa outside [1, 10)")
    rects = [(rect.adjusted(1, 1, -1, -1), text) for rect, text in ticks]
    for i, (ri, ti) in enumerate(rects):
        for rj, tj in rects[i + 1:]:
            if ri.intersects(rj):
                problems.append(f"{axis.orientation} tick labels {ti!r} and {tj!r} overlap")
    return problems


def _legend_problems(items) -> list[str]:
    """The legends of the figure take at most :data:`LEGEND_SHARE` of its plots' area."""
    import pyqtgraph as pg

    legends = [it for it in items if isinstance(it, pg.LegendItem) and _shown(it) and it.items]
    views = [it for it in items if isinstance(it, pg.ViewBox) and _shown(it)]
    if not legends or not views:
        return []
    area = sum(lg.sceneBoundingRect().width() * lg.sceneBoundingRect().height() for lg in legends)
    plots = sum(v.sceneBoundingRect().width() * v.sceneBoundingRect().height() for v in views)
    if area > LEGEND_SHARE * plots:
        return [f"legends take {area / max(plots, 1):.0%} of the plot area "
                f"(at most {LEGEND_SHARE:.0%})"]
    return []


def _over_data(axis) -> bool:
    """The axis (which draws the grid) paints over its plot area."""
    view = axis.linkedView()
    if view is None or axis.parentItem() is not view.parentItem():
        return False
    behind = axis.flags() & axis.GraphicsItemFlag.ItemStacksBehindParent
    return not behind and axis.zValue() >= view.zValue()


def _shown(item) -> bool:
    """Visible and not hidden by an ancestor."""
    while item is not None:
        if not item.isVisible():
            return False
        item = item.parentItem()
    return True


def _inside_view(curve) -> bool:
    """Every point of ``curve`` (a PlotDataItem in a ViewBox) lies in the view's range
    (within 1 % of it): an auto-ranged plot never cuts its data."""
    view = curve.getViewBox()
    if view is None:
        return True
    import numpy as np

    (x0, x1), (y0, y1) = view.viewRange()
    x, y = curve.getData()  # as displayed (log10 on log axes)
    if x is None or y is None:
        return True
    shown = np.isfinite(x) & np.isfinite(y)  # log10 of 0 is not drawn
    if not shown.any():
        return True
    x, y = x[shown], y[shown]
    tol_x, tol_y = 0.01 * (x1 - x0), 0.01 * (y1 - y0)
    return bool(x.min() >= x0 - tol_x and x.max() <= x1 + tol_x
                and y.min() >= y0 - tol_y and y.max() <= y1 + tol_y)
