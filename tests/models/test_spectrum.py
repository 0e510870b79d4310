"""Eigenvalue-decay panel model (Qt-free): validation, requests, display-only fields."""
from __future__ import annotations

import pytest

from ntkviz.models.spectrum import SpectrumModel


def test_default_request():
    from ntkviz.core import KernelSpec

    request = SpectrumModel().request()
    assert (request.dim, request.kmax) == (3, 100)
    assert request.specs == (KernelSpec("arccos1"), KernelSpec("ntk"))


def test_extreme_parameters_reach_the_request_unchanged():
    model = SpectrumModel()
    model.update(kernels=("ntk", "nngp"), depth=50, bias=0.12345, dim=1000, kmax=2000,
                 weighted=True)
    r = model.request()
    assert (r.dim, r.kmax) == (1000, 2000)
    assert {(s.depth, s.bias) for s in r.specs} == {(50, 0.12345)}


@pytest.mark.parametrize("changes, message", [
    ({"dim": 1}, "dim must be in [2, 1000], got 1"),
    ({"dim": 1001}, "dim must be in [2, 1000], got 1001"),
    ({"kmax": 0}, "kmax must be in [1, 2000], got 0"),
    ({"kmax": 2001}, "kmax must be in [1, 2000], got 2001"),
    ({"weighted": "yes"}, "weighted must be true or false"),
    ({"bias": 101.0}, "bias must be in [0, 100]"),
])
def test_out_of_range_values_are_refused(changes, message):
    model = SpectrumModel()
    before = model.params
    with pytest.raises(ValueError) as info:
        model.update(**changes)
    assert message in str(info.value)
    assert model.params is before


def test_guides_slope_and_weighting_are_display_only():
    """Weighting by multiplicity redraws without recomputing (the response holds μ_k and
    N(p, k) μ_k alike): the same request with and without it."""
    model = SpectrumModel()
    seen = []
    model.connect(lambda changed, recompute: seen.append((set(changed), recompute)))
    before = model.request()
    model.update(guides=False)
    model.update(slope=False)
    model.update(weighted=True)
    assert model.request() == before
    model.update(dim=7)
    assert seen == [({"guides"}, False), ({"slope"}, False), ({"weighted"}, False), ({"dim"}, True)]


def test_session_round_trip_and_strict_restore():
    model = SpectrumModel()
    model.update(kernels=("arccos0",), dim=10, kmax=40, weighted=True, guides=False, slope=False)
    other = SpectrumModel()
    other.restore(model.to_session())
    assert other.params == model.params
    with pytest.raises(ValueError, match="dim must be an integer"):
        other.restore({"dim": 2.5})
    with pytest.raises(ValueError, match="unknown parameter 'p'"):
        other.restore({"p": 3})
    assert other.params == model.params


def test_gallery_cases_cover_the_extremes():
    cases = SpectrumModel.gallery_cases()
    assert "default" in cases
    assert any(c.get("dim") == 1000 and c.get("kmax") == 2000 and c.get("depth") == 50
               for c in cases.values())
    for state in cases.values():
        SpectrumModel.build_request(SpectrumModel.parse(state))
