"""The deformation editor's read-outs: ‖τ‖∞, ‖∇τ‖∞ and the pixel distance (no kernel), the
CKN and NTK relative feature distances and their ratio."""
from __future__ import annotations

import math

from PySide6 import QtGui, QtWidgets

from ntkviz.gui.controls import Readout
from ntkviz.limits import CKN_RESOLUTION, NTK_RESOLUTION

__all__ = ["DeformationReadouts", "format_distance"]

#: (key, name, units, tooltip) of each read-out, in the grid's column order
SPECS = (
    ("tau_sup", "‖τ‖∞", " px", "Largest displacement, in pixels."),
    ("jacobian_sup", "‖∇τ‖∞", "", "Largest operator norm of the Jacobian of τ "
     "(central finite differences): how much the deformation stretches."),
    ("pixel", "pixels ‖L<sub>τ</sub>x − x‖/‖x‖", "", "Plain pixel distance: NOT stable to small "
     "translations; the baseline the kernels improve on."),
    ("ckn", "CKN ‖Φ(L<sub>τ</sub>x) − Φ(x)‖/‖Φ(x)‖", "", "Relative distance in the CKN feature "
     "space (last layer trained only): Lipschitz in ‖∇τ‖∞."),
    ("ntk", "NTK ‖Φ(L<sub>τ</sub>x) − Φ(x)‖/‖Φ(x)‖", "", "Relative distance in the convolutional NTK "
     "feature space: Hölder-½ in ‖∇τ‖∞ (Bietti & Mairal, Prop. 12). Values below "
     f"{NTK_RESOLUTION:.0e} are rounding noise (k(x,x) + k(y,y) − 2k(x,y) cancels)."),
    ("ratio", "NTK / CKN", "", "Ratio of the two relative distances."),
)


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


class DeformationReadouts(QtWidgets.QGroupBox):
    """The six read-outs (``readouts``: key -> :class:`~ntkviz.gui.controls.Readout`), each as
    wide as its longest value, so that they never jump while τ is dragged."""

    def __init__(self, parent=None):
        super().__init__("Read-outs (relative to the undeformed digit x)", parent)
        grid = QtWidgets.QGridLayout(self)
        self.readouts: dict[str, Readout] = {}
        font = QtGui.QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        for i, (key, name, units, tip) in enumerate(SPECS):
            r = Readout(name, fmt="{:.4g}", units=units, tooltip=tip)
            r.setFont(font)
            plain = name.replace("<sub>", "").replace("</sub>", "")
            longest = "< 1e-04 (below resolution)" if key in ("ckn", "ntk") else f"-1.234e-05{units}"
            r.setMinimumWidth(r.fontMetrics().horizontalAdvance(f"{plain} = {longest}"))
            self.readouts[key] = r
            grid.addWidget(r, i % 3, i // 3)

    def show_pictures(self, pictures) -> None:
        """The read-outs that need no kernel (a :class:`ntkviz.jobs._deform.DeformImages`)."""
        r = self.readouts
        r["tau_sup"].setValue(pictures.tau_sup)
        r["jacobian_sup"].setValue(pictures.jacobian_sup)
        r["pixel"].setValue(pictures.pixel_distance if math.isfinite(pictures.pixel_distance)
                            else "∞")

    def show_distances(self, resp) -> None:
        """The kernel distances of a :class:`ntkviz.jobs.DeformResponse` and their ratio."""
        r = self.readouts
        r["ckn"].setValue(format_distance(resp.ckn_distance, resp.ckn_below_resolution,
                                          CKN_RESOLUTION, resp.identical))
        r["ntk"].setValue(format_distance(resp.ntk_distance, resp.ntk_below_resolution,
                                          NTK_RESOLUTION, resp.identical))
        r["ratio"].setValue(resp.ratio if math.isfinite(resp.ratio) else "–")
