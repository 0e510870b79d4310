"""Eigenvalue-decay panel: Mercer eigenvalues μ_k on S^{p-1} against k on log–log
axes, exact zeros shown on the axis, unresolved points marked, guide lines,
local slopes and a table of the values.

Runs standalone: ``python -m ntkviz.gui.panels.spectrum``.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.panels._kernel_controls import KernelChooser
from ntkviz.gui.widgets import (CurveHover, LabeledSlider, Readout, html_maths, make_plot, pen,
                                set_item_name, set_label, set_title, settle)

__all__ = ["QtSpectrumPanel"]

HELP = """
<h3>Mercer eigenvalues μ_k on the sphere S^{p−1}</h3>
<p>A dot-product kernel on the sphere expands in spherical harmonics (Funk–Hecke):
κ(⟨x, y⟩) = Σ_k μ_k N(p, k) P_k(⟨x, y⟩), where P_k is the Legendre (Gegenbauer) polynomial of
degree k in dimension p with P_k(1) = 1, N(p, k) = (2k + p − 2)/k · C(k + p − 3, p − 2) is the
number of harmonics of degree k, and</p>
<p>μ_k = (ω_{p−2}/ω_{p−1}) ∫_{−1}^{1} κ(t) P_k(t) (1 − t²)^{(p−3)/2} dt,</p>
<p>the eigenvalue of each degree-k harmonic for the uniform probability measure. Sum rule:
Σ_k N(p, k) μ_k = κ(1). The “N(p, k) μ_k” option plots each degree's share of κ(1).</p>
<p><b>Decay</b> (Bietti &amp; Mairal 2019, Prop. 5 and Lemma 17): for the two-layer ReLU NTK,
μ_k ~ C(p) k^{−p} for even k, C(p) = 2^{p−1} Γ(p/2)² / π², and μ_k = 0 for odd k ≥ 3;
for κ1, μ_k ~ p C(p) k^{−p−2}; κ0 vanishes at even k ≥ 2. Deep kernels (L ≥ 3) have no
exact zeros and decay like their two-layer counterparts. At high p the asymptotic rate
appears only at large k (p = 10: μ_60 · 60^p / C(p) ≈ 0.53).</p>
<p><b>Display.</b> Exact zeros cannot sit on a log axis: they are drawn as triangles on the
bottom of the plot. Points whose error estimate exceeds 1% of |μ_k| (or that are ≤ 0 or not
finite without being exact zeros) are marked with red crosses. k = 0 is not on a log axis:
μ_0 is in the read-out and the table. The local slope is
log(μ_{k+2}/μ_k)/log((k+2)/k), drawn at k + 1 (pairs of equal parity), to compare with the
guide exponents −p and −p − 2.</p>
"""


class _TableModel(QtCore.QAbstractTableModel):
    """A read-only table over ``(header, rows)`` (fast for thousands of rows)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.header: list[str] = []
        self.rows: list[list] = []

    def set_table(self, header, rows) -> None:
        self.beginResetModel()
        self.header, self.rows = list(header), rows
        self.endResetModel()

    def rowCount(self, parent=QtCore.QModelIndex()):  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QtCore.QModelIndex()):  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.header)

    def data(self, index, role=QtCore.Qt.ItemDataRole.DisplayRole):
        if role != QtCore.Qt.ItemDataRole.DisplayRole or not index.isValid():
            return None
        v = self.rows[index.row()][index.column()]
        return f"{v:.10g}" if isinstance(v, float) else str(v)

    def headerData(self, section, orientation, role=QtCore.Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role != QtCore.Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == QtCore.Qt.Orientation.Horizontal:
            return self.header[section] if section < len(self.header) else None
        return str(section + 1)


class QtSpectrumPanel(QtPanel):
    """μ_k against k (log–log), local slopes, values table."""

    key = "spectrum"
    title = "Eigenvalue decay"

    def __init__(self, dispatcher, parent=None):
        super().__init__(dispatcher, parent)
        self._items: dict[tuple, tuple] = {}  # key -> (plot item, graphics item, style)
        self._used: set = set()
        self._table_stale = True

        self.kernels = KernelChooser(default=("ntk", "arccos1"))
        self.dim = LabeledSlider("dimension p", 2, 1000, 3, mapping="log", integer=True,
                                 steps=300, tooltip="input dimension p: the sphere S^{p−1} ⊂ R^p")
        self.kmax = LabeledSlider("k max", 1, 2000, 100, mapping="log", integer=True, steps=300,
                                  tooltip="largest degree k of the spherical harmonics")
        self.weighted = QtWidgets.QCheckBox("weight by multiplicity: N(p, k) μ_k")
        self.weighted.setToolTip("N(p, k) μ_k is degree k's share of κ(1) (Σ_k N(p, k) μ_k = κ(1))")
        self.guides = QtWidgets.QCheckBox("guide lines C k^exponent")
        self.guides.setToolTip("asymptotic decay C(p) k^{−p} (NTK, κ0) and p C(p) k^{−p−2} "
                               "(κ1, NNGP), constants from the closed forms, not fitted")
        self.guides.setChecked(True)
        self.slope = QtWidgets.QCheckBox("local-slope view")
        self.slope.setToolTip("log(μ_{k+2}/μ_k) / log((k+2)/k) against k")
        self.slope.setChecked(True)
        self.mu0 = Readout("μ_0", tooltip="k = 0 cannot be drawn on a log axis")
        self.mu0.setWordWrap(True)
        self.counts = Readout("", tooltip="exact zeros and unresolved points")
        self.counts.setWordWrap(True)

        controls = QtWidgets.QWidget()
        cl = QtWidgets.QVBoxLayout(controls)
        for w in (self.kernels, self.dim, self.kmax, self.weighted, self.guides, self.slope,
                  self.mu0, self.counts):
            cl.addWidget(w)
        cl.addStretch(1)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(controls.sizeHint().width() + 24)

        self.plot = make_plot("Mercer eigenvalues", "degree k", "μ<sub>k</sub>", log_x=True,
                              log_y=True)
        self.plot_slope = make_plot("Local slope", "degree k",
                                    "d log μ<sub>k</sub> / d log k", log_x=True)
        self.plot_slope.setXLink(self.plot)
        self.hover = Readout()
        self.hover.setText("hover a point to read exact values")
        self._hovers = [CurveHover(self.plot.getPlotItem(), self.hover, "k", "μ"),
                        CurveHover(self.plot_slope.getPlotItem(), self.hover, "k", "slope")]
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        splitter.addWidget(self.plot)
        splitter.addWidget(self.plot_slope)
        splitter.setSizes([600, 260])
        plots = QtWidgets.QWidget()
        pl = QtWidgets.QVBoxLayout(plots)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(splitter, 1)
        pl.addWidget(self.hover)

        self.table_model = _TableModel(self)
        self.table = QtWidgets.QTableView()
        self.table.setModel(self.table_model)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setStretchLastSection(True)

        self.right = QtWidgets.QTabWidget()
        self.right.addTab(plots, "Plots")
        self.right.addTab(self.table, "Values table")
        self.right.currentChanged.connect(self._on_tab)

        lay = QtWidgets.QHBoxLayout(self)
        lay.addWidget(scroll)
        lay.addWidget(self.right, 1)

        self.kernels.changed.connect(self.refresh)
        for w in (self.dim, self.kmax):
            w.valueChanged.connect(self.refresh)
        for w in (self.weighted, self.guides, self.slope):
            w.toggled.connect(self.refresh)

    def build_request(self):
        from ntkviz.jobs import SpectrumRequest

        self.kernels.ensure_activations()
        return SpectrumRequest.from_state(self.state())

    # --------------------------------------------------------------- drawing
    def _item(self, plot, key: tuple, make, style=None, name: str | None = None):
        """The plot item cached under ``key`` (a kind and a position, stable while a
        slider moves): created by ``make()`` and added to ``plot`` on first use or when
        its ``style`` changes, renamed in place (legend included) when only ``name``
        changes; items not requested during an update are removed at its end."""
        entry = self._items.get(key)
        if entry is None or entry[2] != style:
            if entry is not None:
                entry[0].removeItem(entry[1])
            entry = self._items[key] = (plot, make(), style)
            plot.addItem(entry[1])
        elif name is not None:
            set_item_name(plot, entry[1], name)
        self._used.add(key)
        return entry[1]

    def _curve(self, plot, key: tuple, x, y, style=None, **opts):
        # dynamicRangeLimit=None: pyqtgraph would otherwise redo every item's display data
        # (symbols included) whenever the y range changes, i.e. twice per update; it only
        # clips points more than 10^6 view heights away, never the case with auto-range
        item = self._item(plot, key, lambda: pg.PlotDataItem(dynamicRangeLimit=None, **opts), style,
                          opts.get("name"))
        item.setData(x, y)
        return item

    def _drop_unused(self) -> None:
        for key in [k for k in self._items if k not in self._used]:
            plot, item, _ = self._items.pop(key)
            plot.removeItem(item)

    def apply_response(self, r) -> None:
        req = r.request
        pi, ps = self.plot.getPlotItem(), self.plot_slope.getPlotItem()
        ylab = "N(p, k) μ<sub>k</sub>" if req.weighted else "μ<sub>k</sub>"
        set_label(pi, "left", ylab)
        set_title(pi, f"Mercer eigenvalues on S<sup>{req.dim - 1}</sup>  (p = {req.dim})")
        self._used = set()
        positive = np.concatenate([s.y[s.shown & (s.k >= 1)] for s in r.series] or [np.ones(1)])
        positive = positive[positive > 0]
        floor = float(positive.min()) / 30.0 if positive.size else 1e-300
        n_zero = n_bad = 0
        for i, s in enumerate(r.series):
            m = s.shown & (s.k >= 1)
            self._curve(pi, ("mu", i), s.k[m], s.y[m], pen=pen(i, 1.5), symbol="o",
                        symbolSize=4, symbolPen=None, symbolBrush=pen(i).color(),
                        name=s.label)
            z = s.zero & (s.k >= 1)
            if z.any():
                n_zero += int(z.sum())
                # one row of markers per kernel, stacked below the data (log axis)
                self._curve(pi, ("zero", i), s.k[z],
                            np.full(int(z.sum()), floor / 3.0 ** i), pen=None, symbol="t1", symbolSize=8, symbolPen=pen(i, 1),
                            symbolBrush=pg.mkBrush(None),
                            name=f"{s.label}: exact zeros μ_k = 0 (on axis)")
            b = s.unresolved & (s.k >= 1)
            if b.any():
                n_bad += int(b.sum())
                yb = np.where(np.isfinite(s.y[b]) & (s.y[b] > 0), s.y[b], floor)
                self._curve(pi, ("bad", i), s.k[b], yb, pen=None, symbol="x",
                            symbolSize=9, symbolPen=pen("#d00000", 1.5),
                            symbolBrush=pg.mkBrush("#d00000"),
                            name=f"{s.label}: unresolved (error > 1%)")
            if self.slope.isChecked() and len(s.slope):
                self._curve(ps, ("slope", i), s.slope_k, s.slope, pen=pen(i, 1.5),
                            symbol="o", symbolSize=4, symbolPen=None,
                            symbolBrush=pen(i).color(), name=s.label)
        if self.guides.isChecked():
            for j, g in enumerate(r.guides):
                ok = np.isfinite(g.values) & (g.values > 0)
                first = j == 0 or r.guides[j - 1].kernel_index != g.kernel_index
                gp = pen(g.kernel_index, 1.2, QtCore.Qt.PenStyle.DashLine if first
                         else QtCore.Qt.PenStyle.DotLine)
                style = (g.kernel_index, first)
                self._curve(pi, ("guide", j), g.k[ok], g.values[ok], style, pen=gp,
                            name=f"guide {g.label}")
                if self.slope.isChecked():
                    line = self._item(ps, ("level", j),
                                      lambda: pg.InfiniteLine(
                                          angle=0, pen=gp, label=f"{g.exponent:g}",
                                          labelOpts={"position": 0.03, "color": gp.color()}),
                                      style)
                    if line.label.format != f"{g.exponent:g}":
                        line.label.setFormat(f"{g.exponent:g}")
                    line.setValue(g.exponent)
        self._drop_unused()
        self.plot_slope.setVisible(self.slope.isChecked())
        settle(self.plot, self.plot_slope)
        self.mu0.setValue("; ".join(f"{s.label}: {s.y[0]:.6g}" for s in r.series if s.k[0] == 0))
        self.counts.setValue(f"{n_zero} exact zeros (△ on the axis), {n_bad} unresolved (×)")
        self._table_stale = True
        if self.right.currentWidget() is self.table:
            self._fill_table()
        self.status.emit(f"{self.title}: p = {req.dim}, k ≤ {req.kmax}, {len(r.series)} kernel(s)"
                         f", {n_zero} exact zeros, {n_bad} unresolved")

    def _fill_table(self) -> None:
        """Fill the values table (lazily: only when it is shown)."""
        if self.response is not None and self._table_stale:
            self.table_model.set_table(*self.response.csv_table("spectrum"))
            self._table_stale = False

    def _on_tab(self, _index: int) -> None:
        if self.right.currentWidget() is self.table:
            self._fill_table()

    # --------------------------------------------------------------- export
    def plot_items(self) -> dict:
        return {"spectrum": self.plot.getPlotItem(), "slope": self.plot_slope.getPlotItem()}

    def state(self) -> dict:
        return {**self.kernels.state(), "dim": self.dim.value(), "kmax": self.kmax.value(),
                "weighted": self.weighted.isChecked(), "guides": self.guides.isChecked(),
                "slope": self.slope.isChecked()}

    def set_state(self, state: dict) -> None:
        with self.refresh_suspended():  # one computation for the whole state
            self.kernels.set_state(state)
            self.dim.restore(state.get("dim", self.dim.value()))
            self.kmax.restore(state.get("kmax", self.kmax.value()))
            self.weighted.setChecked(bool(state.get("weighted", self.weighted.isChecked())))
            self.guides.setChecked(bool(state.get("guides", self.guides.isChecked())))
            self.slope.setChecked(bool(state.get("slope", self.slope.isChecked())))
        self.refresh()

    def help_html(self) -> str:
        return html_maths(HELP)


if __name__ == "__main__":
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtSpectrumPanel))
