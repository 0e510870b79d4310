"""Classification view: kernel ridge accuracy of CKN, NTK and pixels on bundled digits.

Two plots: accuracy against the training-set size (test digits undeformed or at
the first amplitude) and accuracy against the amplitude of a deformation of the
test digits (largest training size) -- the accuracy side of the stability
trade-off of Bietti & Mairal (2019). The job (:class:`ntkviz.jobs.ClassifyRequest`)
runs on the heavy worker when Start is pressed, with progress and cancel; its
Gram matrices are cached as Zarr stores, so a rerun with another ridge or
training size is instant. Maths: :mod:`ntkviz.dataset.classify`.
"""
from __future__ import annotations

from PySide6 import QtWidgets

from ntkviz import limits
from ntkviz._text import parse_list
from ntkviz.dataset._names import DEFORM_FAMILIES, FAMILY_RANGES, KERNELS
from ntkviz.gui.panels._base import OnDemandPanel
from ntkviz.gui.controls import JobControls, combo, form_group, int_spin, line_edit
from ntkviz.gui.plot_style import PALETTE, make_plot, pen

__all__ = ["QtClassificationPanel"]

#: kernel -> (legend name, colour index), as in the stability view
STYLE = {"ckn": ("CKN", 0), "ntk": ("NTK", 1), "pixels": ("pixels", 2)}
#: headroom above accuracy 1 where the legend sits (never over data)
Y_TOP = 1.3
#: smallest size of each plot (px): its title, axes and the three-column legend uncut
PLOT_MIN = (320, 200)


def _ridge(text: str) -> float | None:
    """The ridge field: ``auto`` (or nothing) -> ``None`` (cross-validation), else a number."""
    if text.strip().lower() in ("auto", ""):
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"ridge must be a number or 'auto', got {text!r}") from None


class QtClassificationPanel(OnDemandPanel):
    """Accuracy vs training size and vs deformation amplitude (see the module docstring)."""

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self._build()
        self.sync_widgets(frozenset())
        self.show_empty(self.idle_note())

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.arch_combo = combo(limits.ARCH_PRESETS,
                                "Conv architecture of the CKN and NTK (M4: exp kernel, no NTK).")
        self.kernel_checks = {}
        row = QtWidgets.QHBoxLayout()
        for k in KERNELS:
            cb = QtWidgets.QCheckBox(STYLE[k][0])
            cb.toggled.connect(self._on_kernels)
            self.kernel_checks[k] = cb
            row.addWidget(cb)
        self.sizes_edit = line_edit("Training sizes, comma-separated (nested subsets of a seeded "
                                    "permutation).")
        self.test_spin = int_spin((10, 500), "Test digits (the rest of the 1,000 bundled digits is the "
                                             "training pool).")
        self.ridge_edit = line_edit("Ridge relative to the mean kernel diagonal, or 'auto': 5-fold "
                                    "cross-validation on the training set.")
        self.family_combo = combo(["none", *DEFORM_FAMILIES])
        self.amps_edit = line_edit("Deformation amplitudes of the test digits, comma-separated.")
        self.seed_spin = int_spin((0, 2**31 - 1))
        self.cache_check = QtWidgets.QCheckBox("cache Gram matrices on disk")
        box = form_group("Classification of bundled digits", [
            ("architecture", self.arch_combo), ("kernels", row), ("training sizes", self.sizes_edit),
            ("test digits", self.test_spin), ("ridge", self.ridge_edit), ("deformation", self.family_combo),
            ("amplitudes", self.amps_edit), ("seed", self.seed_spin), self.cache_check])
        controls = JobControls(box, self.run_text, max_width=300,
                               tooltip="compute (or load from the cache) the Gram matrices and "
                                       "classify; runs in the background")
        self.use_controls(controls)

        self.size_widget = make_plot("Accuracy vs training size", "training digits n", "test accuracy")
        self.amp_widget = make_plot("Accuracy vs test deformation", "amplitude",
                                    "test accuracy")
        self.plots = {"train_size": self.size_widget.getPlotItem(),
                      "deformation": self.amp_widget.getPlotItem()}
        for widget in (self.size_widget, self.amp_widget):
            widget.setMinimumSize(*PLOT_MIN)
        self.curves = {}
        for view, plot in self.plots.items():
            for axis in ("left", "bottom"):
                plot.getAxis(axis).enableAutoSIPrefix(False)
            plot.setYRange(0.0, Y_TOP, padding=0)
            plot.getAxis("left").setTicks([[(v / 10, f"{v / 10:g}") for v in range(0, 11, 2)]])
            plot.getViewBox().setMouseEnabled(y=False)
            plot.legend.setColumnCount(3)
            plot.legend.anchor((0, 0), (0, 0), offset=(8, 2))
            for k in KERNELS:
                name, ci = STYLE[k]
                self.curves[(view, k)] = plot.plot([], [], pen=pen(PALETTE[ci], 2.5), symbol="o", symbolSize=7,
                                                   symbolBrush=PALETTE[ci], symbolPen=PALETTE[ci], name=name)
        plots = QtWidgets.QVBoxLayout()
        plots.addWidget(self.size_widget, 1)
        plots.addWidget(self.amp_widget, 1)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(controls)
        lay.addLayout(plots, 1)

        self.arch_combo.currentTextChanged.connect(lambda v: self.write(architecture=v))
        self.sizes_edit.editingFinished.connect(
            lambda: self._set_text(self.sizes_edit, "train_sizes", lambda t: parse_list("train_sizes", t)))
        self.amps_edit.editingFinished.connect(
            lambda: self._set_text(self.amps_edit, "amplitudes", lambda t: parse_list("amplitudes", t, float)))
        self.ridge_edit.editingFinished.connect(lambda: self._set_text(self.ridge_edit, "ridge", _ridge))
        self.test_spin.valueChanged.connect(lambda v: self.write(test_size=int(v)))
        self.seed_spin.valueChanged.connect(lambda v: self.write(seed=int(v)))
        self.family_combo.currentTextChanged.connect(self._on_family)
        self.cache_check.toggled.connect(lambda v: self.write(use_cache=bool(v)))

    # ------------------------------------------------------------ parameters
    def _set_text(self, edit, field, parse) -> None:
        try:
            value = parse(edit.text())
        except ValueError as exc:  # the message names the field
            self._report_error(str(exc))
            self.sync_widgets(frozenset({field}))
            return
        self.write(**{field: value})

    def _on_kernels(self) -> None:
        self.write(kernels=tuple(k for k in KERNELS if self.kernel_checks[k].isChecked()))

    def _on_family(self, family: str) -> None:
        p = self.model.params
        if family == p.family:
            return
        amps = p.amplitudes if family == "none" else self._default_amplitudes(family)
        self.write(family=family, amplitudes=amps)

    @staticmethod
    def _default_amplitudes(family: str) -> tuple[float, ...]:
        return {"rotation": (0.0, 15.0, 30.0), "translation": (0.0, 1.0, 2.0), "scale": (1.0, 1.1, 1.2),
                "shear": (0.0, 0.1, 0.2), "smooth": (0.0, 0.5, 1.0), "infimnist": (0.0, 1.0, 2.0)}[family]

    def sync_widgets(self, changed: frozenset) -> None:
        p = self.model.params
        widgets = [self.arch_combo, self.sizes_edit, self.test_spin, self.ridge_edit, self.family_combo,
                   self.amps_edit, self.seed_spin, self.cache_check, *self.kernel_checks.values()]
        for w in widgets:
            w.blockSignals(True)
        try:
            self.arch_combo.setCurrentText(p.architecture)
            for k, cb in self.kernel_checks.items():
                cb.setChecked(k in p.kernels)
            self.sizes_edit.setText(", ".join(str(n) for n in p.train_sizes))
            self.test_spin.setValue(p.test_size)
            self.ridge_edit.setText("auto" if p.ridge is None else f"{p.ridge:g}")
            self.family_combo.setCurrentText(p.family)
            self.amps_edit.setText(", ".join(f"{a:g}" for a in p.amplitudes))
            self.amps_edit.setEnabled(p.family != "none")
            self.seed_spin.setValue(p.seed)
            self.cache_check.setChecked(p.use_cache)
        finally:
            for w in widgets:
                w.blockSignals(False)
        self.plots["deformation"].setLabel(
            "bottom", "amplitude (no deformation)" if p.family == "none"
            else f"{p.family} amplitude ({FAMILY_RANGES[p.family][1]})")

    def idle_note(self) -> str:
        """Press Start, and what the run costs."""
        try:
            pairs = self.model.request().pairs()
        except ValueError:
            return super().idle_note()
        cost = (f"about {pairs:,} conv kernel pairs the first time (M1: ~2.5 ms each), cached "
                "afterwards" if pairs else "pixels only: seconds")
        return f"{super().idle_note()} ({cost})"

    # ------------------------------------------------------------ drawing
    def apply_response(self, response) -> None:
        """Draw the (partial or final) accuracies of these parameters."""
        if not self.partial:
            self.progress.setValue(1000)
            ridges = "; ".join(f"{STYLE[k][0]} {lam:g}" for (k, n), lam in
                               response.result.ridges.items() if n == max(response.train_sizes))
            note = response.result.coverage_warning()
            self.info.setText(f"done. ridge (relative) at n = {max(response.train_sizes)}: "
                              f"{ridges}" + (f"\nwarning: {note}" if note else ""))
        for view, plot in self.plots.items():
            series = response.series(view)
            shown = [k for k in KERNELS if k in response.kernels]
            if [label.text for _, label in plot.legend.items] != [STYLE[k][0] for k in shown]:
                plot.legend.clear()  # the legend lists only the kernels computed
                for k in shown:
                    plot.legend.addItem(self.curves[(view, k)], STYLE[k][0])
            for k in KERNELS:
                xs, ys = series.get(k, ([], []))
                self.curves[(view, k)].setData(xs, ys)
            xs = [x for k in series for x in series[k][0]]
            if xs:
                lo, hi = min(xs), max(xs)
                pad = 0.05 * (hi - lo) if hi > lo else max(abs(lo) * 0.1, 1.0)
                plot.setXRange(lo - pad, hi + pad, padding=0)
            plot.setYRange(0.0, Y_TOP, padding=0)

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        return dict(self.plots)

    def help_html(self) -> str:
        return (
            "<h3>Classification: CKN vs NTK vs pixels</h3>"
            "<p>One-vs-rest kernel ridge regression on the bundled MNIST digits: f(x) = k(x, X) "
            "(K + λ (tr K / n) I)<sup>−1</sup> Y with one-hot targets; the predicted digit is the "
            "largest score. λ is relative to the mean kernel diagonal; 'auto' picks it by 5-fold "
            "cross-validation on the training set only.</p>"
            "<p>Kernels: the exact CKN and convolutional NTK of the chosen architecture (Bietti &amp; "
            "Mairal 2019; one pass computes both) and a Gaussian kernel on pixels with the median "
            "distance as bandwidth (the baseline).</p>"
            "<p>Top: accuracy against the number of training digits (test digits at the first "
            "amplitude). Bottom: accuracy of the largest training size against the amplitude of a "
            "deformation of the test digits (the deformation editor's families) — the accuracy side "
            "of the stability/approximation trade-off. For larger data sets use "
            "<code>ntkviz classify</code> (Dask cluster, Zarr cache).</p>"
        )


if __name__ == "__main__":  # pragma: no cover - demo
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtClassificationPanel))
