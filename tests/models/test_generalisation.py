"""Generalisation model: validation, sessions, requests (Qt-free)."""
import subprocess
import sys

import pytest

from ntkviz.models.learning import LearningModel, LearningParams, parse_target_text


def test_model_module_is_light():
    code = ("import sys, ntkviz.models.learning as m; "
            "print(any(k.split('.')[0] in ('numba', 'scipy', 'PySide6') for k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("text,kind", [("1:1,2:-0.5", "components"), ("harmonic:3", "components"),
                                       ("ridge:0.2", "ridge"), ("step:-0.1", "step"), ("abs", "abs")])
def test_target_text(text, kind):
    assert parse_target_text(text)["kind"] == kind


@pytest.mark.parametrize("state,field", [
    ({"target": "3001:1"}, "target"), ({"target": "1:nan"}, "target"), ({"target": "ridge:2"}, "target"),
    ({"ridge": -1.0}, "ridge"), ({"noise": -0.5}, "noise"), ({"n": 0}, "n"), ({"seeds": 0}, "seeds"),
    ({"dim": 1}, "dim"), ({"mc_sizes": [30000]}, "mc_sizes"), ({"view": "nope"}, "view"),
    ({"kmax": 5}, "kmax"), ({"target": "20:1", "kmax": 10}, "target"),
])
def test_bad_values_refused_and_model_unchanged(state, field):
    model = LearningModel()
    before = model.to_session()
    with pytest.raises(ValueError, match=field):
        model.restore(state)
    assert model.to_session() == before


def test_session_round_trip_and_display_only():
    model = LearningModel()
    calls = []
    model.connect(lambda changed, recompute: calls.append((set(changed), recompute)))
    model.update(view="gp")
    assert calls[-1] == ({"view"}, False)
    model.update(ridge=0.5, target="abs")
    assert calls[-1][1] is True
    other = LearningModel()
    other.restore(model.to_session())
    assert other.params == model.params


def test_requests_follow_params():
    p = LearningParams(kernels=("ntk", "nngp"), depth=3, dim=7, ridge=0.1, noise=0.2, n=300,
                             target="ridge:0.3", mc_sizes=(20, 40), seeds=2, kmax=50)
    req = LearningModel.build_request(p)
    assert (req.dim, req.ridge, req.noise, req.n, req.kmax) == (7, 0.1, 0.2, 300, 50)
    assert req.target.kind == "ridge" and req.target.threshold == 0.3
    assert [s.depth for s in req.kernels] == [3, 3]
    mc = LearningModel.monte_carlo_request(p)
    assert mc.n_values == (20, 40) and mc.seeds == 2


def test_gallery_cases_parse():
    for name, state in LearningModel.gallery_cases().items():
        LearningModel.parse(state)
