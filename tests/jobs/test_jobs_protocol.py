"""The request protocol: every request the panels build is a ``Request`` that says how it
runs (``heavy``, ``iterated``); a long one's ``iterate()`` yields ``Progress`` items only
and *returns* its response, which is what calling the request returns."""
from __future__ import annotations

import pytest

from ntkviz.jobs import LongRequest, Progress, Request, run_to_end
from ntkviz.panels import model_class, specs

#: small parameters per panel, so that every request runs in about a second
SMALL = {
    "kernel": {},
    "spectrum": {"kmax": 20},
    "deformation": {"rotation_deg": 5.0},
    "stability": {"digits": [0, 100], "amplitude_count": 2, "reference_per_class": 2},
    "training": {"steps": 50, "frames": 5},
    "classification": {"kernels": ["pixels"], "train_sizes": [10], "test_size": 10,
                       "amplitudes": [0.0], "use_cache": False},
    "learning": {"kmax": 20, "n": 50},
    "scattering": {"L": 4, "order": 1},
}


def test_every_panel_has_small_parameters_here():
    assert set(SMALL) == {s.key for s in specs()}


@pytest.mark.parametrize("key", sorted(SMALL))
def test_panel_requests_follow_the_protocol(key):
    model = model_class(key)
    request = model.build_request(model.parse(SMALL[key]))
    assert isinstance(request, Request)
    assert isinstance(type(request).heavy, bool) and isinstance(type(request).iterated, bool)
    assert not hasattr(request, "run")
    if not request.iterated:
        return
    assert isinstance(request, LongRequest)
    items = []
    response = run_to_end(request.iterate(), on_item=items.append)
    assert response is not None and not isinstance(response, Progress)
    assert all(type(item) is Progress and 0.0 <= item.fraction <= 1.0 for item in items)
    assert not any(hasattr(item, "result") or hasattr(item, "response") for item in items)
    partials = [item.partial for item in items if item.partial is not None]
    assert all(type(p) is type(response) for p in partials)
    assert type(request()) is type(response)


def test_the_context_job_is_a_long_request_too():
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.deformations.digits import digit_image
    from ntkviz.jobs import ContextRequest, ContextResult

    request = ContextRequest(digit_image(1, 9), 1, PRESETS["M3"], per_class=1)
    assert isinstance(request, LongRequest) and request.iterated and not request.heavy
    assert isinstance(run_to_end(request.iterate()), ContextResult)
