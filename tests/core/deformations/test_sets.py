"""One digit against sets of digits: sweeps, set specs, statistics, progress and cache."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS, Architecture, Layer
from ntkviz.core.conv.gram import image_norms, rel_distances
from ntkviz.core.deformations import sets as S
from ntkviz.core.deformations.digits import digit_image
from ntkviz.core.deformations.infimnist import MOVES


def test_set_specs_parse_and_name_themselves():
    specs = S.parse_sets("deform:3,deform+translate:1,same,any")
    assert [s.token for s in specs] == list(S.DEFAULT_SETS)
    assert specs[0].deforms and not specs[0].translates and specs[1].translates and not specs[2].deforms
    assert specs[0].label() == "deformations, α = 3"
    assert specs[1].label() == "translations + deformations, α = 1"
    assert specs[2].label(5) == "digits of the same label (5)"
    assert S.parse_sets(["same", "deform:0.5"])[1].alpha == 0.5
    for bad, match in (("deform", "needs its α"), ("same:2", "takes no α"), ("twist:1", "set must be one of"),
                       ("same,same", "twice"), ("deform:x", "must be a number"), ("same,,any", "comma-separated"),
                       ("deform:-1", r"in \[0, 1000\]")):
        with pytest.raises(ValueError, match=match):
            S.parse_sets(bad)


def test_sweep_architectures():
    m1 = PRESETS["M1"]
    for v in (1, 2, 3, 5):
        arch = S.sweep_architecture(m1, "last-pooling", v)
        assert arch.layers[0] == m1.layers[0]
        assert (arch.layers[1].subsampling, arch.layers[1].pool_factor) == (v, v)
    assert S.sweep_architecture(m1, "last-pooling", 5) == m1
    assert S.sweep_architecture(m1, "patch", 3) == m1
    assert [lay.npatch for lay in S.sweep_architecture(m1, "patch", 5).layers] == [5, 5]
    assert S.sweep_architecture(m1, "layers", 2) == m1
    assert S.sweep_architecture(m1, "layers", 1).layers == (m1.layers[1],)
    three = S.sweep_architecture(m1, "layers", 3)   # 28 -> 13 -> 5: the last layer's subsampling lowered to 2
    assert three.layers[:2] == (m1.layers[0],) * 2 and three.layers[2].subsampling == 2
    assert three.layer_sizes(28, 28)[-1][2] == (1, 1)
    assert S.sweep_architecture(m1, "amplitude", 0.5) == m1
    a0 = Architecture(m1.layers, initial_pooling_sigma=1.0)   # other fields are kept
    assert S.sweep_architecture(a0, "last-pooling", 2).initial_pooling_sigma == 1.0
    with pytest.raises(ValueError, match="last-pooling 7: layer 2"):
        S.sweep_architecture(m1, "last-pooling", 7)
    with pytest.raises(ValueError, match="layers 4: "):
        S.sweep_architecture(m1, "layers", 4)
    with pytest.raises(ValueError, match="sweep must be one of"):
        S.sweep_architecture(m1, "width", 2)


def test_mean_sem_closed_form():
    mean, sem, n = S.mean_sem(np.array([1.0, 2.0, 4.0]))
    assert (mean, n) == (pytest.approx(7 / 3), 3)
    assert sem == pytest.approx(math.sqrt(((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 2 / 3))
    assert math.isnan(S.mean_sem(np.array([0.5]))[1])
    assert all(math.isnan(v) for v in S.mean_sem(np.array([0.1, np.nan]))[:2])


def _moved(image, move):
    out = image
    for part in MOVES[move].split("-"):
        dr, dc = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1), "none": (0, 0)}[part]
        out = np.roll(out, (dr, dc), axis=(0, 1))   # the digit's border is blank: a roll is a shift
    return out


def test_own_field_deformations():
    x = digit_image(5, 0)
    assert not x[:, :2].any() and not x[:, -1].any() and not x[[0, -1]].any()
    np.testing.assert_array_equal(S.own_field_deformations(x, 0.0, False, 3), np.stack([x] * 3))
    moved = S.own_field_deformations(x, 0.0, True, 10)
    for k in range(10):   # member k is moved by move (k + 1) mod 9
        np.testing.assert_array_equal(moved[k], _moved(x, (k + 1) % 9))
    d = S.own_field_deformations(x, 2.0, False, 4)
    assert d.shape == (4, 28, 28) and d.min() >= 0 and d.max() <= 1
    assert len({a.tobytes() for a in d}) == 4 and not np.allclose(d[0], x)


def test_reference_distances_are_the_pair_distances_and_cached():
    arch = PRESETS["M1"]
    x = digit_image(5, 0)
    ys = np.stack([digit_image(5, 1), digit_image(3, 0), np.zeros((28, 28))])
    ckn, ntk = S.reference_distances(x, ys, arch)
    nx = image_norms(x, arch)
    for k in range(3):
        c, n = rel_distances(nx, image_norms(ys[k], arch), arch)
        assert ckn[k] == pytest.approx(c, rel=1e-10) and ntk[k] == pytest.approx(n, rel=1e-8)
    assert ckn[2] == pytest.approx(1.0)   # ||Phi(x) - 0|| / ||Phi(x)||
    again = S.reference_distances(x, ys.copy(), arch)
    assert again[0] is ckn   # cached by architecture and contents
    no_ntk = S.reference_distances(x, ys, PRESETS["M4"])
    assert np.all(np.isnan(no_ntk[1])) and np.all(np.isfinite(no_ntk[0]))


def test_sweep_progress_values_cancel_and_csv():
    x = digit_image(5, 0)
    pool = {"same": np.stack([digit_image(5, k) for k in (1, 2, 3)]),
            "any": np.stack([digit_image(k, 1) for k in (0, 4, 7)])}
    calls = []

    def images_of(spec, alpha):
        calls.append((spec.kind, alpha))
        return S.own_field_deformations(x, alpha, spec.translates, 3) if spec.deforms else pool[spec.kind]

    specs = S.parse_sets("deform:2,same,any")
    items = list(S.sets_sweep(x, specs, images_of, PRESETS["M3"], "patch", (3, 1), 5))
    assert [round(i.fraction, 6) for i in items] == [round(k / 6, 6) for k in range(1, 7)]
    assert sorted(calls) == sorted([("deform", 2.0), ("same", None), ("any", None)])   # once per set
    r = items[-1].result
    assert r.complete and not items[-2].result.complete and r.reference_label == 5
    assert items[0].result.count.tolist() == [[3, 0], [0, 0], [0, 0]]
    arch1 = S.sweep_architecture(PRESETS["M3"], "patch", 1)
    ckn, ntk = S.reference_distances(x, pool["any"], arch1)
    assert r.mean["ntk"][2, 1] == pytest.approx(np.mean(ntk)) and r.sem["ckn"][2, 1] == pytest.approx(
        np.std(ckn, ddof=1) / math.sqrt(3))
    assert r.architectures[1] == arch1.label and "patch" in r.axis_label
    header, rows = r.to_csv_rows()
    assert header == ["map", "set", "sweep", "value", "mean", "sem", "n"] and len(rows) == 12
    assert rows[0][:4] == ["ckn", "deform:2", "patch", 3] and rows[-1][:4] == ["ntk", "any", "patch", 1]
    assert rows[-1][4] == r.mean["ntk"][2, 1] and rows[-1][6] == 3
    first = next(S.sets_sweep(x, specs, images_of, PRESETS["M3"], "patch", (3, 1)))
    assert first.fraction == pytest.approx(1 / 6)   # stopping after one item is a cancel


def test_amplitude_sweep_uses_the_value_as_alpha():
    x = digit_image(5, 0)
    same = np.stack([digit_image(5, k) for k in (1, 2)])
    r = list(S.sets_sweep(x, S.parse_sets("deform+translate:9,same"),
                          lambda s, a: S.own_field_deformations(x, a, True, 2) if s.deforms else same,
                          PRESETS["M3"], "amplitude", (0.0, 1.0)))[-1].result
    header, rows = r.to_csv_rows()
    assert [row[1] for row in rows[:4]] == ["deform+translate"] * 2 + ["same"] * 2
    assert r.mean["ckn"][1, 0] == r.mean["ckn"][1, 1]   # the label sets do not depend on α
    moved = S.own_field_deformations(x, 0.0, True, 2)   # α = 0: the one-pixel moves alone
    assert r.mean["ckn"][0, 0] == pytest.approx(np.mean(S.reference_distances(x, moved, PRESETS["M3"])[0]))


def test_sweep_refusals():
    x = digit_image(5, 0)
    specs = S.parse_sets("same")
    with pytest.raises(ValueError, match="must not repeat"):
        next(S.sets_sweep(x, specs, lambda s, a: x[None], PRESETS["M1"], "patch", (3, 3)))
    with pytest.raises(ValueError, match="last-pooling 9"):
        next(S.sets_sweep(x, specs, lambda s, a: x[None], PRESETS["M1"], "last-pooling", (2, 9)))
    with pytest.raises(ValueError, match="at least one value"):
        next(S.sets_sweep(x, specs, lambda s, a: x[None], PRESETS["M1"], "patch", ()))
    with pytest.raises(ValueError, match="patch must be in"):
        next(S.sets_sweep(x, specs, lambda s, a: x[None], Architecture((Layer(3, 2),)), "patch", (0,)))
