"""The deformation editor's figures: a distance that does not exist is not drawn as a bar of
height 0, and the pictures (no kernel) are drawn before the kernel distances arrive."""
from __future__ import annotations

import math
import threading

import numpy as np
import pyqtgraph as pg

from ntkviz.core.deformations.deform import Deformation, deform_image
from ntkviz.core.deformations.digits import digit_image

TIMEOUT = 60000


def _bars_at(plot, x0: float, x1: float) -> list[float]:
    """Heights of the bars drawn with their centre in ``[x0, x1)``."""
    out = []
    for item in plot.items:
        if isinstance(item, pg.BarGraphItem) and item.isVisible():
            xs, hs = np.asarray(item.opts["x"], float), np.asarray(item.opts["height"], float)
            out += [float(h) for x, h in zip(xs, hs) if x0 <= x < x1]
    return out


def test_exp_layers_leave_the_ntk_group_out_and_say_why(qtbot, dispatcher):
    """M4 (exp patch kernels) has no NTK: no NTK group, no bar of height 0 anywhere (every
    bar drawn is a value of the CSV), and the figure says why."""
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    panel = QtDeformationPanel(dispatcher)
    panel.model.context_per_class = 2
    qtbot.addWidget(panel)
    panel.resize(1300, 850)
    panel.show()
    # (not a pure translation: the Fourier modulus of a circular shift does not move at all)
    panel.model.update(preset="M4", translate_x=1.0, rotation_deg=5.0)
    panel.start()
    qtbot.waitUntil(lambda: panel.response is not None and panel.context_result() is not None,
                    timeout=TIMEOUT)
    panel.redraw()
    assert math.isnan(panel.response.ntk_distance)
    plot = panel.context_plot
    ticks = plot.getAxis("bottom")._tickLevels[0]
    labels = [label for _, label in ticks]
    assert "NTK" not in labels and labels == ["CKN", "scattering", "Fourier modulus", "pixels"]
    heights = []
    for x, _ in ticks:
        group = _bars_at(plot, x - 0.5, x + 0.5)
        assert group and all(h > 0 for h in group)
        heights += group
    assert sorted(_bars_at(plot, -10, 10)) == sorted(heights)  # no bar outside the groups
    _, rows = panel.csv_table("context")
    values = sorted(v for _, m, v in rows)
    assert all(m != "ntk" for _, m, _ in rows)
    np.testing.assert_allclose(sorted(heights), values, rtol=1e-12)
    assert "NTK not drawn" in plot.getAxis("bottom").labelText
    assert "exp layers" in plot.getAxis("bottom").labelText


def test_pictures_are_drawn_before_the_kernel_distances(qtbot, dispatcher, monkeypatch):
    """While the kernel part of the job is held back, the original digit, the deformed one
    and the read-outs without a kernel are already drawn (equal to the core's deformation);
    the distances follow when the kernel is let go."""
    import ntkviz.jobs._deform as jobs_deform
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    release = threading.Event()
    original = jobs_deform.image_norms

    def held(*args, **kwargs):
        release.wait(TIMEOUT / 1000)
        return original(*args, **kwargs)

    monkeypatch.setattr(jobs_deform, "image_norms", held)
    panel = QtDeformationPanel(dispatcher)
    panel.model.context_per_class = 2
    qtbot.addWidget(panel)
    panel.resize(1300, 850)
    panel.show()
    try:
        panel.model.update(label=3, index=1, translate_x=1.5)
        panel.start()
        qtbot.waitUntil(lambda: panel.images["deformed"].image is not None, timeout=20000)
        assert panel.response is None  # the kernel distances are still held back
        image = digit_image(3, 1)
        deformed, tau = deform_image(image, Deformation(translate_x=1.5))
        np.testing.assert_array_equal(panel.images["original"].image, image)
        np.testing.assert_array_equal(panel.images["deformed"].image, deformed)
        want = np.linalg.norm(deformed - image) / np.linalg.norm(image)
        assert panel.readouts["pixel"].text().endswith(f"{want:.4g}")
        assert panel.readouts["ckn"].text().endswith("–")
    finally:
        release.set()
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        pass
    assert panel.readouts["ckn"].text() != "" and not panel.readouts["ckn"].text().endswith("–")


def test_pictures_of_other_parameters_are_never_drawn(qtbot, dispatcher):
    """The pictures job answers on the view's own job slot with the parameters it was made
    for: pictures of other parameters (a late answer after a slider moved on) are left out,
    those of the current parameters are drawn (equal to the core's deformation)."""
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    panel = QtDeformationPanel(dispatcher)
    panel.model.context_per_class = 2
    qtbot.addWidget(panel)
    panel.resize(1300, 850)
    panel.show()
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(label=3, index=1, translate_x=1.5)
        panel.start()
    assert panel.images_slot.key == f"{panel.key}.images" != panel.key
    image = digit_image(3, 1)
    now, _ = deform_image(image, Deformation(translate_x=1.5))
    np.testing.assert_array_equal(panel.images["deformed"].image, now)
    other = panel.model.parse({**panel.state(), "translate_x": -2.5})
    late = panel.model.build_request(other).images()
    panel.images_slot.returned.emit(1, late, other)
    np.testing.assert_array_equal(panel.images["deformed"].image, now)  # not drawn
    panel.model.update(translate_x=-2.5)
    panel.images_slot.returned.emit(2, late, other)  # now the model's parameters
    then, _ = deform_image(image, Deformation(translate_x=-2.5))
    np.testing.assert_array_equal(panel.images["deformed"].image, then)
