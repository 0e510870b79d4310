"""The Scattering tab (offscreen, pytest-qt): the figures draw exactly the core's filter bank
(and its Littlewood-Paley sum) and the transform's channels in ``scattering_paths`` order,
the counterexample's legend gives the core's exponents, the order-2 scales only redraw, and
sessions and user images round-trip."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ntkviz.core.deformations.digits import digit_image
from ntkviz.core.scattering.filters import filter_bank
from ntkviz.core.scattering.transform import ScatteringParams, scattering_paths, scattering_transform

TIMEOUT = 120000
GAP = 1


@pytest.fixture
def panel(qtbot, dispatcher):
    from ntkviz.gui.panels.scattering import QtScatteringPanel

    p = QtScatteringPanel(dispatcher)
    qtbot.addWidget(p)
    p.resize(1280, 720)
    p.show()
    p.model.update(J=2, L=4, omega0s=(math.pi / 2, math.pi), dilation_min=0.01, dilation_max=0.05,
                   dilation_count=3)
    with qtbot.waitSignal(p.computed, timeout=TIMEOUT):
        p.start()
    return p


def tile(image, r, c, h, w):
    return image[r * (h + GAP):r * (h + GAP) + h, c * (w + GAP):c * (w + GAP) + w]


def test_the_filter_figures_draw_the_bank_and_its_littlewood_paley_sum(panel):
    J, L, G = 2, 4, 64              # a 28-px digit at J = 2: the 64-px display grid
    bank = filter_bank((G, G), J, L)
    psi = [bank.psi[j][0][l] for j in range(J) for l in range(L)]
    A = bank.phi[0] ** 2 + 0.5 * sum(p ** 2 + np.roll(p[::-1, ::-1], 1, axis=(0, 1)) ** 2 for p in psi)
    np.testing.assert_allclose(panel.frequency.image.image, np.fft.fftshift(A), rtol=0, atol=1e-15)
    rect = panel.frequency.image.mapRectToParent(panel.frequency.image.boundingRect())
    assert rect.left() == pytest.approx(-math.pi - math.pi / G) and rect.width() == pytest.approx(2 * math.pi)
    x, y = panel.littlewood_paley.along2.getData()
    np.testing.assert_allclose(x, 2 * np.pi * np.arange(-G // 2, G // 2) / G, rtol=0, atol=1e-15)
    np.testing.assert_allclose(y, np.fft.fftshift(A)[G // 2], rtol=0, atol=1e-15)
    assert [line.value() for line in panel.littlewood_paley.bounds] == [A.min(), A.max()]
    image = panel.wavelets.image.image
    h = (image.shape[1] + GAP) // L // 2 - 1             # tiles of 2h + 1 px, L per row
    side, c = 2 * h + 1, G // 2
    for j in range(J):
        for l in range(L):
            space = np.fft.fftshift(np.fft.ifft2(bank.psi[j][0][l]))[c - h:c + h + 1, c - h:c + h + 1]
            np.testing.assert_allclose(tile(image, j, l, side, side), space.real / np.abs(space).max(),
                                       rtol=0, atol=1e-14)
    labels = [t for _, t in panel.wavelets.plot.getAxis("bottom")._tickLevels[0]]
    assert labels == ["π/4", "0", "−π/4", "−π/2"]                 # theta_l = (1 - l) pi / 4


def test_the_coefficient_images_are_the_transforms_channels(qtbot, panel):
    params = ScatteringParams(J=2, L=4)
    S = scattering_transform(digit_image(3, 0), params)
    h, w = S.shape[1:]
    np.testing.assert_array_equal(panel.order0.image.image, S[0])
    paths = scattering_paths(params)
    for k, (scales, orients) in enumerate(paths):
        if len(scales) == 1:
            np.testing.assert_array_equal(tile(panel.order1.image.image, scales[0], orients[0], h, w), S[k])
        elif len(scales) == 2:
            np.testing.assert_array_equal(tile(panel.order2.image.image, *orients, h, w), S[k])
    header, rows = panel.csv_table("coefficients")
    assert len(rows) == (1 + 2 * 4) * h * w


def test_the_order_two_scales_only_redraw(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.transform.j_spin.setValue(3)
    assert [panel.second_order.pairs.itemText(i) for i in range(panel.second_order.pairs.count())] == \
        ["j1 = 0, j2 = 1", "j1 = 0, j2 = 2", "j1 = 1, j2 = 2"]
    before = panel.dispatcher.latest_id(panel.key)
    panel.second_order.pairs.setCurrentIndex(2)
    assert (panel.model.params.j1, panel.model.params.j2) == (1, 2)
    assert panel.dispatcher.latest_id(panel.key) == before
    np.testing.assert_array_equal(panel.order2.image.image, panel.response.coefficients.order2[(1, 2)])
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.transform.order.setCurrentIndex(1)
    assert panel.order2.image.image is None and "choose order 2" in panel.order2.note.text()
    assert not panel.second_order.isEnabled()


def test_the_counterexample_legend_gives_the_cores_exponents(panel):
    from ntkviz.core.deformations.deform import dilation, displacement_field
    from ntkviz.core.deformations.maps import map_features, relative_distances
    from ntkviz.core.deformations.probes import gabor_image
    from ntkviz.core.deformations.stability import fit_loglog_slope

    params = ScatteringParams(J=2, L=4)
    omega0s, s = (math.pi / 2, math.pi), 0.05
    d = {}
    for name in ("fourier", "scattering"):
        values = []
        for w in omega0s:
            tau = displacement_field(dilation(s), (64, 64))
            f = map_features(name, np.stack([gabor_image((64, 64), w), gabor_image((64, 64), w, tau=tau)]),
                             params)
            values.append(relative_distances(f[:1], f[1:])[0])
        d[name] = fit_loglog_slope(omega0s, values)
    texts = [label.text for _, label in panel.by_omega0.legend.items]
    assert f"Fourier: exponent {d['fourier']:.2f}" in texts
    assert f"scattering: exponent {d['scattering']:.2f}" in texts
    labels = [t for _, t in panel.by_omega0.plot.getAxis("bottom")._tickLevels[0]]
    assert labels == ["π/2", "π"]
    curves = [c for c in panel.by_s.items if c.name() and c.name().startswith("Fourier")]
    assert len(curves) == 2
    x, _ = curves[0].getData()
    np.testing.assert_allclose(10 ** x, [0.01, math.sqrt(0.01 * 0.05), 0.05], rtol=1e-12)   # log axis


def test_sessions_and_an_odd_sized_user_image(qtbot, panel, dispatcher, tmp_path):
    from ntkviz.gui.panels.scattering import QtScatteringPanel

    odd = np.zeros((27, 27))
    odd[5:20, 9:14] = 0.8
    path = tmp_path / "odd.npy"
    np.save(path, odd)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        assert panel.load_user_image(path)
    assert panel.model.params.source == "image" and panel.transform.j_spin.maximum() == 4
    np.testing.assert_array_equal(panel.response.image, odd)
    S = scattering_transform(odd, ScatteringParams(J=2, L=4))
    np.testing.assert_array_equal(panel.order0.image.image, S[0])
    state = json.loads(json.dumps(panel.state()))
    other = QtScatteringPanel(dispatcher)
    qtbot.addWidget(other)
    other.set_state(state)
    assert other.model.params == panel.model.params
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.source.probe_button.click()
    assert panel.transform.j_spin.maximum() == 6 and panel.response.image.shape == (64, 64)
    assert panel.source.load(tmp_path / "missing.npy") is False
    assert "current image kept" in panel.last_error and panel.model.params.source == "gabor"


def test_exports_of_every_view(qtbot, panel, tmp_path):
    from PySide6 import QtGui

    from ntkviz.gui.export import export_view

    for view in panel.plot_items():
        out = export_view(panel, view, tmp_path / f"{view}.png", 640, 400)
        image = QtGui.QImage(str(out))
        assert (image.width(), image.height()) == (640, 400)
        assert export_view(panel, view, tmp_path / f"{view}.csv").stat().st_size > 0
