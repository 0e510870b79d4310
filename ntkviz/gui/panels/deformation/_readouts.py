"""The deformation editor's read-outs: ‖τ‖∞, ‖∇τ‖∞, and the relative distance
‖Φ(L_τx) − Φ(x)‖/‖Φ(x)‖ of each map Φ: pixels, the scattering transform and the Fourier
modulus (no kernel: drawn with the pictures), the CKN and the NTK and their ratio."""
from __future__ import annotations

import math

from PySide6 import QtGui, QtWidgets

from ntkviz.gui.controls import Readout
from ntkviz.limits import CKN_RESOLUTION, FEATURE_RESOLUTION, NTK_RESOLUTION

__all__ = ["DeformationReadouts", "format_distance", "SPECS", "READOUT_MAPS"]

#: (key, name, units, tooltip) of each read-out, in the grid's column order (three rows)
SPECS = (
    ("tau_sup", "‖τ‖∞", " px", "Largest displacement, in pixels."),
    ("jacobian_sup", "‖∇τ‖∞", "", "Largest operator norm of the Jacobian of τ "
     "(central finite differences): how much the deformation stretches."),
    ("pixel", "pixels", "", "‖L<sub>τ</sub>x − x‖/‖x‖, the plain pixel distance: NOT stable to "
     "small translations; the baseline the other maps improve on."),
    ("ckn", "CKN", "", "‖Φ(L<sub>τ</sub>x) − Φ(x)‖/‖Φ(x)‖ in the CKN feature space (last layer "
     "trained only): Lipschitz in ‖∇τ‖∞."),
    ("ntk", "NTK", "", "‖Φ(L<sub>τ</sub>x) − Φ(x)‖/‖Φ(x)‖ in the convolutional NTK feature space: "
     "Hölder-½ in ‖∇τ‖∞ (Bietti & Mairal, Prop. 12). Values below "
     f"{NTK_RESOLUTION:.0e} are rounding noise (k(x,x) + k(y,y) − 2k(x,y) cancels)."),
    ("ratio", "NTK / CKN", "", "Ratio of the two relative distances."),
    ("scattering", "scattering S<sub>J</sub>", "",
     "‖S<sub>J</sub>L<sub>τ</sub>x − S<sub>J</sub>x‖/‖S<sub>J</sub>x‖: the scattering coefficients "
     "(Morlet wavelets, orders 0–2, averaged at scale 2<sup>J</sup>): Lipschitz in ‖∇τ‖∞ "
     "(Mallat 2012) and invariant to translations much smaller than 2<sup>J</sup> px."),
    ("fourier", "Fourier modulus", "",
     "‖|(L<sub>τ</sub>x)^| − |x̂|‖/‖|x̂|‖ (unitary 2-D DFT): invariant to circular shifts, but a "
     "dilation by s moves a frequency ω₀ by ω₀s, so the distance grows like ω₀‖∇τ‖∞ "
     "(the Gabor probe shows it)."),
)
#: the read-outs of each map of :data:`ntkviz.core.deformations.maps.MAPS`
READOUT_MAPS = {"ckn": ("ckn",), "ntk": ("ntk",), "scattering": ("scattering",),
                "fourier": ("fourier",), "pixels": ("pixel",)}


def format_distance(value: float, below: bool, resolution: float, identical: bool) -> str:
    """A relative feature distance as read: 0 for identical images, n/a without the map,
    ∞ from an all-zero digit, "below resolution" for rounding noise, else 4 digits."""
    if identical:
        return "0 (identical images)"
    if value is None or math.isnan(value):
        return "n/a (CKN only: exp layers)"
    if math.isinf(value):
        return "∞ (the digit is all zero)"
    if below:
        return f"< {resolution:.0e} (below resolution)"
    return f"{value:.4g}"


def _explicit(value: float, identical: bool) -> str:
    """A distance of explicit features (pixels, scattering, Fourier modulus)."""
    return format_distance(value, 0 <= value < FEATURE_RESOLUTION and not identical,
                           FEATURE_RESOLUTION, identical)


class DeformationReadouts(QtWidgets.QGroupBox):
    """The read-outs (``readouts``: key -> :class:`~ntkviz.gui.controls.Readout`), each as
    wide as its longest value, so that they never jump while τ is dragged; those of the
    maps not shown (:meth:`show_maps`) are hidden."""

    def __init__(self, parent=None):
        super().__init__("Read-outs: ‖τ‖ and, per map Φ, ‖Φ(Lτx) − Φ(x)‖ / ‖Φ(x)‖", parent)
        grid = QtWidgets.QGridLayout(self)
        self.readouts: dict[str, Readout] = {}
        font = QtGui.QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        for i, (key, name, units, tip) in enumerate(SPECS):
            r = Readout(name, fmt="{:.4g}", units=units, tooltip=tip)
            r.setFont(font)
            plain = name.replace("<sub>", "").replace("</sub>", "")
            longest = "< 1e-04 (below resolution)" if key in ("ckn", "ntk") else \
                "0 (identical images)" if key in ("scattering", "fourier", "pixel") else f"-1.234e-05{units}"
            r.setMinimumWidth(r.fontMetrics().horizontalAdvance(f"{plain} = {longest}"))
            self.readouts[key] = r
            grid.addWidget(r, i % 3, i // 3)

    def show_maps(self, maps) -> None:
        """Show the read-outs of ``maps`` (names of ``MAPS``) and of ‖τ‖; the ratio with both
        kernels."""
        shown = {key for m in maps for key in READOUT_MAPS[m]} | {"tau_sup", "jacobian_sup"}
        if {"ckn", "ntk"} <= set(maps):
            shown.add("ratio")
        for key, r in self.readouts.items():
            r.setVisible(key in shown)

    def show_pictures(self, pictures) -> None:
        """The read-outs that need no kernel (a :class:`ntkviz.jobs._deform.DeformImages`)."""
        r = self.readouts
        r["tau_sup"].setValue(pictures.tau_sup)
        r["jacobian_sup"].setValue(pictures.jacobian_sup)
        for key, value in (("pixel", pictures.pixel_distance),
                           ("scattering", pictures.scattering_distance),
                           ("fourier", pictures.fourier_distance)):
            r[key].setValue(_explicit(value, pictures.identical))

    def show_distances(self, resp) -> None:
        """The kernel distances of a :class:`ntkviz.jobs.DeformResponse` and their ratio."""
        r = self.readouts
        r["ckn"].setValue(format_distance(resp.ckn_distance, resp.ckn_below_resolution,
                                          CKN_RESOLUTION, resp.identical))
        r["ntk"].setValue(format_distance(resp.ntk_distance, resp.ntk_below_resolution,
                                          NTK_RESOLUTION, resp.identical))
        r["ratio"].setValue(resp.ratio if math.isfinite(resp.ratio) else "–")
