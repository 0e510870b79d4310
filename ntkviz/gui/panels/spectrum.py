"""Eigenvalue-decay panel: Mercer eigenvalues μ_k on S^{p-1} against k on log–log
axes, exact zeros shown on the axis, unresolved points marked, guide lines,
local slopes and a table of the values.

Runs standalone: ``python -m ntkviz.gui.panels.spectrum``.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtWidgets

from ntkviz import limits
from ntkviz.gui.controls import Readout
from ntkviz.gui.panels._curve_plots import sci
from ntkviz.gui.panels._kernel_controls import (KernelChoicePanel, log_int_slider, scroll_column,
                                                set_checked, set_slider)
from ntkviz.gui.panels._spectrum_figure import SpectrumFigure
from ntkviz.limits import SPECTRUM_KMAX_RANGE

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
<p><b>Display.</b> The plot draws log10 μ_k, so eigenvalues below the smallest
floating-point number (10^{−308}) are still drawn. Exact zeros cannot sit on a log axis: they
are drawn as triangles on the bottom of the plot. Points whose error estimate exceeds 1% of
|μ_k|, that are ≤ 0 or not finite without being exact zeros, or that the computation does not
vouch for, are marked with red crosses (“not trustworthy”). k = 0 is not on a log axis:
μ_0 is in the read-out and the table. The local slope is
log(μ_{k+2}/μ_k)/log((k+2)/k), drawn at k + 1 (pairs of equal parity), to compare with the
guide exponents −p and −p − 2. Weighted by multiplicity, every curve, guide and slope is that of
N(p, k) μ_k: since N(p, k) ~ 2k^{p−2}/(p−2)!, its guide exponents are those of μ_k plus p − 2
(−2 and −4 for the two-layer NTK and κ1).</p>
"""

_RIGHT = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter


def cell_text(value) -> str:
    """A table cell: floats in scientific notation with every significant digit
    (:func:`sci`: the shortest text that reads back as the same float64), the rest as
    text."""
    return sci(float(value)) if isinstance(value, (float, np.floating)) else str(value)


def vouched_text(value: float, error: float) -> str:
    """``value`` in the table's notation to the significant digits its absolute ``error``
    vouches for: every digit down to the place of the error's leading digit (so the text
    is within ``error / 2`` of ``value``), at least one, never more than the float64's
    shortest text (:func:`cell_text`). ``3.7499999999999983e-01`` with an error of
    ``3e-15`` reads ``3.75e-01``: μ₀ of κ1 at p = 3 is 3/8, and its closed form's route
    through log-gamma lands 3 ulp below it, within the error it reports. An exact value
    (error 0), zero or a non-finite number is shown whole."""
    value, error = float(value), float(error)
    full = cell_text(value)
    if value == 0 or error <= 0 or not (math.isfinite(value) and math.isfinite(error)):
        return full
    digits = max(1, math.floor(math.log10(abs(value))) - math.floor(math.log10(error)) + 1)
    mantissa = full.partition("e")[0].lstrip("-").replace(".", "")
    if digits >= len(mantissa):
        return full
    text = np.format_float_scientific(value, precision=digits - 1, unique=False, trim="-",
                                      exp_digits=2)
    mantissa, _, exponent = text.partition("e")
    return f"{mantissa.rstrip('.')}e{exponent}"  # NumPy keeps the point of "5.e-01"


#: the values table's explanation of its columns (header tooltips)
VOUCHED_TIP = ("to the digits the error estimate vouches for (within error_estimate / 2); "
               "exported CSV files keep every float64 digit")
WEIGHTED_COLUMN = "N(p,k) mu_k"
WEIGHTED_TIP = ("the plotted N(p, k) μ_k, computed as 10^(log10 N(p, k) + log10 μ_k) so that it "
                "exists beyond the float64 range; " + VOUCHED_TIP)


def values_table(header, rows, weighted: bool):
    """``(header, rows, formats, tips)`` of the values table from the spectrum view's CSV
    table: ``mu_k`` shown to the digits its error estimate vouches for
    (:func:`vouched_text`); the plotted value (``y_plotted``) left out when it is μ_k
    itself, named ``N(p,k) mu_k`` and shown the same way when weighted (its relative
    error is μ_k's). Each row ends with the CSV row it shows (read by the formats)."""
    header = list(header)
    mu, err, y = header.index("mu_k"), header.index("error_estimate"), header.index("y_plotted")
    keep = [i for i in range(len(header)) if weighted or i != y]

    def mu_text(row) -> str:
        csv_row = row[-1]
        return vouched_text(csv_row[mu], csv_row[err])

    def y_text(row) -> str:
        csv_row = row[-1]
        relative = csv_row[err] / abs(csv_row[mu]) if csv_row[mu] else math.inf
        return vouched_text(csv_row[y], abs(csv_row[y]) * relative)

    formats = {keep.index(mu): mu_text}
    tips = {keep.index(mu): "μ_k " + VOUCHED_TIP}
    if weighted:
        formats[keep.index(y)] = y_text
        tips[keep.index(y)] = WEIGHTED_TIP
    shown = [WEIGHTED_COLUMN if i == y else header[i] for i in keep]
    return shown, [[r[i] for i in keep] + [r] for r in rows], formats, tips


class _TableModel(QtCore.QAbstractTableModel):
    """A read-only table over ``(header, rows)`` (fast for thousands of rows); numbers
    right-aligned in full-precision scientific notation, or as ``formats[column](row)``
    says; ``tips[column]``: the header's tooltip. A row may hold more values than the
    header names (what the formats read)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.header: list[str] = []
        self.rows: list[list] = []
        self.formats: dict = {}
        self.tips: dict = {}

    def set_table(self, header, rows, formats=None, tips=None) -> None:
        self.beginResetModel()
        self.header, self.rows = list(header), rows
        self.formats, self.tips = dict(formats or {}), dict(tips or {})
        self.endResetModel()

    def rowCount(self, parent=QtCore.QModelIndex()):  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QtCore.QModelIndex()):  # noqa: N802 - Qt API
        return 0 if parent.isValid() else len(self.header)

    def data(self, index, role=QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        v = row[index.column()]
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            fmt = self.formats.get(index.column())
            return fmt(row) if fmt is not None else cell_text(v)
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and not isinstance(v, str):
            return int(_RIGHT.value)
        return None

    def headerData(self, section, orientation,  # noqa: N802 - Qt API
                   role=QtCore.Qt.ItemDataRole.DisplayRole):
        horizontal = orientation == QtCore.Qt.Orientation.Horizontal
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and horizontal:
            return self.tips.get(section)
        if role != QtCore.Qt.ItemDataRole.DisplayRole:
            return None
        if horizontal:
            return self.header[section] if section < len(self.header) else None
        return str(section + 1)


def mu0_text(series) -> str:
    """μ₀ of ``series`` in the table's notation to the digits its error estimate vouches
    for, at most 10 (``3.75e-01`` for κ1 at p = 3, whose float64 is 3 ulp below 3/8:
    :func:`vouched_text`), or from ``log10_mu`` when μ₀ is beyond the float64 range."""
    mu0 = float(series.mu[0])
    log10_mu = getattr(series, "log10_mu", None)
    if (mu0 == 0 or not np.isfinite(mu0)) and log10_mu is not None and np.isfinite(log10_mu[0]) \
            and not series.zero[0]:
        return sci(log10=float(log10_mu[0]))
    return vouched_text(float(f"{mu0:.10g}"), max(float(series.error_estimate[0]),
                                                  5e-11 * abs(mu0)))


class QtSpectrumPanel(KernelChoicePanel):
    """μ_k against k (log–log), local slopes, values table: the view of a
    :class:`~ntkviz.models.spectrum.SpectrumModel`."""

    HELP = HELP

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self._table_stale = True
        self._add_chooser()
        self.dim = log_int_slider("dimension p", limits.DIM_RANGE, 3,
                                  "input dimension p (the sphere Sᵖ⁻¹ ⊂ ℝᵖ)")
        self.kmax = log_int_slider("k max", SPECTRUM_KMAX_RANGE, 100,
                                   "largest degree k of the spherical harmonics")
        self.weighted = QtWidgets.QCheckBox("weight by multiplicity: N(p, k) μₖ")
        self.weighted.setToolTip("N(p, k) μₖ is degree k's share of κ(1) (Σₖ N(p, k) μₖ = κ(1))")
        self.guides = QtWidgets.QCheckBox("guide lines C·kᵃ (asymptotic decay)")
        self.guides.setToolTip("asymptotic decay C(p) k⁻ᵖ (NTK, κ0) and p C(p) k⁻ᵖ⁻² "
                               "(κ1, NNGP), constants from the closed forms, not fitted")
        self.slope = QtWidgets.QCheckBox("local-slope view")
        self.slope.setToolTip("log(μₖ₊₂/μₖ) / log((k+2)/k) against k")
        self.mu0 = Readout("μ₀", tooltip="k = 0 cannot be drawn on a log axis")
        self.mu0.setWordWrap(True)
        self.counts = Readout("", tooltip="exact zeros and points whose error estimate exceeds 1%")
        self.counts.setWordWrap(True)

        scroll = scroll_column(self.kernels, self.dim, self.kmax, self.weighted, self.guides,
                               self.slope, self.mu0, self.counts)
        self.figure = SpectrumFigure()
        self.plot, self.plot_slope = self.figure.plot, self.figure.plot_slope

        self.table_model = _TableModel(self)
        self.table = QtWidgets.QTableView()
        self.table.setModel(self.table_model)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setResizeContentsPrecision(200)

        self.right = QtWidgets.QTabWidget()
        self.right.addTab(self.figure, "Plots")
        self.right.addTab(self.table, "Values table")
        self.right.currentChanged.connect(self._on_tab)

        lay = QtWidgets.QHBoxLayout(self)
        lay.addWidget(scroll)
        lay.addWidget(self.right, 1)

        self.sync_widgets(frozenset(self.model.to_session()))
        self.dim.valueChanged.connect(lambda v: self.write(dim=int(v)))
        self.kmax.valueChanged.connect(lambda v: self.write(kmax=int(v)))
        for name in ("weighted", "guides", "slope"):
            getattr(self, name).toggled.connect(
                lambda v, name=name: self.write(**{name: v}))

    # ------------------------------------------------------------- the model
    def sync_widgets(self, changed: frozenset) -> None:
        super().sync_widgets(changed)
        p = self.model.params
        set_slider(self.dim, p.dim)
        set_slider(self.kmax, p.kmax)
        for name in ("weighted", "guides", "slope"):
            set_checked(getattr(self, name), getattr(p, name))

    # --------------------------------------------------------------- drawing
    def apply_response(self, r) -> None:
        n_zero, n_bad = self.figure.draw(r, self.model.params)
        self.mu0.setValue("; ".join(f"{s.label}: {mu0_text(s)}" for s in r.series
                                    if s.k[0] == 0))
        self.counts.setValue(f"{n_zero} exact zeros (△ on the axis), {n_bad} not trustworthy (×)")
        self._table_stale = True
        if self.right.currentWidget() is self.table:
            self._fill_table()
        req = r.request
        self.status.emit(f"{self.title}: p = {req.dim}, k ≤ {req.kmax}, {len(r.series)} kernel(s)"
                         f", {n_zero} exact zeros, {n_bad} not trustworthy")

    def _fill_table(self) -> None:
        """Fill the values table (lazily: only when it is shown) with the model's table of
        the response drawn (:func:`values_table`: μ_k, and N(p, k) μ_k when weighted, to
        the digits their error estimates vouch for)."""
        if self.is_current() and self._table_stale:
            self.table_model.set_table(*values_table(*self.csv_table("spectrum"),
                                                     self.model.params.weighted))
            self.table.resizeColumnsToContents()  # from the first rows (precision below)
            self._table_stale = False

    def _on_tab(self, _index: int) -> None:
        if self.right.currentWidget() is self.table:
            self._fill_table()

    # --------------------------------------------------------------- export
    def plot_items(self) -> dict:
        return self.figure.plot_items()

    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        return self.figure.exporting(view, width, height)


if __name__ == "__main__":
    from ntkviz.gui.app import run_standalone

    raise SystemExit(run_standalone(QtSpectrumPanel))
