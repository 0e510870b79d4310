"""The lazy-training parameter model, without Qt: ranges, strict sessions, requests."""
from __future__ import annotations

import json
import sys

import pytest

from ntkviz.models.training import DEFAULT_METRICS, TrainingModel, TrainingParams


def test_defaults_are_the_papers_setup_side_by_side():
    p = TrainingParams()
    assert (p.alpha, p.alpha2, p.compare, p.width, p.samples, p.teacher, p.dim) == \
        (0.01, 100.0, True, 20, 15, 3, 2)
    assert p.compare_alpha == 100.0 and p.frame == -1 and p.metrics == DEFAULT_METRICS


def test_import_loads_no_numba_or_qt():
    import subprocess

    code = ("import sys, ntkviz.models.training as m; m.TrainingModel.parse({'alpha': 3.0}); "
            "print(sorted(k for k in ('numba', 'PySide6', 'scipy', 'pyqtgraph') "
            "if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("state,message", [
    ({"seed": 1e10}, "seed must be in [0, 4294967295]"),
    ({"seed": 2.5}, "seed must be an integer"),
    ({"frame": 1e9}, "frame must be in [-1, "),
    ({"frame": -2}, "frame must be in [-1, "),
    ({"alpha": 1e-5}, "alpha must be in [0.0001, 1e+06]"),
    ({"alpha2": 1e7}, "alpha2 must be in"),
    ({"width": 7}, "width must be even"),
    ({"width": 100000}, "width must be in [2, 65536]"),
    ({"lr": 0}, "lr must be in [1e-06, 1000]"),
    ({"steps": 0}, "steps must be in [1, 1000000]"),
    ({"frames": 5000}, "frames must be in [1, 2000]"),
    ({"init": "bogus"}, "init must be one of symmetric, centered"),
    ({"metrics": ["foo"]}, "metrics must be among"),
    ({"metrics": ["gap", "gap"]}, "metrics must not repeat"),
    ({"compare": 1}, "compare must be true or false"),
    ({"autoplay": "yes"}, "autoplay must be true or false"),
    ({"compare_alpha": "3"}, "alpha2 must be a number"),
    ({"compare_alpha": 1e9}, "alpha2 must be in [0.0001, 1e+06]"),
    ({"tau": 3.0}, "unknown parameter 'tau'"),
])
def test_sessions_refuse_invalid_values_and_change_nothing(state, message):
    model = TrainingModel()
    before = model.params
    seen = []
    model.connect(lambda changed, recompute: seen.append(changed))
    with pytest.raises(ValueError, match=None) as info:
        model.restore(state)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert model.params is before and not seen


@pytest.mark.parametrize("steps, frames, count", [(400, 40, 41), (10000, 120, 121), (25, 120, 26)])
def test_frame_range_is_the_exact_timeline(steps, frames, count):
    # the initialisation and every frame asked for (one per step when there are fewer steps)
    p = TrainingParams(steps=steps, frames=frames)
    assert p.frame_count() == count
    TrainingModel.parse({"steps": steps, "frames": frames, "frame": count - 1})
    with pytest.raises(ValueError, match=rf"frame must be in \[-1, {count - 1}\]"):
        TrainingModel.parse({"steps": steps, "frames": frames, "frame": count})


def test_display_only_fields_do_not_recompute():
    model = TrainingModel()
    calls = []
    model.connect(lambda changed, recompute: calls.append((set(changed), recompute)))
    model.update(metrics=("gap",))
    model.update(frame=3)
    model.update(autoplay=False)
    model.update(alpha=2.0)
    assert calls == [({"metrics"}, False), ({"frame"}, False), ({"autoplay"}, False),
                     ({"alpha"}, True)]


def test_shortening_the_run_from_a_control_shows_its_last_frame():
    model = TrainingModel(TrainingParams(frame=90))
    with pytest.raises(ValueError, match="frame must be in"):
        model.restore({"frames": 20})  # a session asking for both is refused...
    model.update(frames=20)  # ...a control keeps the change and shows the last frame
    assert model.params.frames == 20 and model.params.frame == -1
    model.update(frame=5)
    model.update(steps=20000)
    assert model.params.frame == 5  # still on the timeline: kept


def test_session_round_trip_through_json():
    model = TrainingModel()
    model.restore({"alpha": 0.05, "compare": False, "width": 16, "seed": 3, "init": "centered",
                   "metrics": ["train_loss", "kernel_drift"], "frame": 4, "autoplay": False})
    saved = json.loads(json.dumps(model.to_session()))
    other = TrainingModel()
    other.restore(saved)
    assert other.params == model.params and other.to_session() == saved


def test_request_carries_every_parameter():
    p = TrainingModel.parse({"alpha": 0.5, "alpha2": 7.0, "width": 8, "samples": 9, "teacher": 2,
                             "dim": 3, "lr": 0.003, "steps": 50, "frames": 10, "seed": 4,
                             "init": "centered", "ntk_scaling": True, "log_time": False})
    req = TrainingModel.build_request(p)
    c = req.config
    assert (c.alpha, c.width, c.samples, c.teacher, c.dim, c.lr, c.steps, c.frames, c.seed,
            c.init, c.ntk_scaling, c.log_time) == (0.5, 8, 9, 2, 3, 0.003, 50, 10, 4, "centered",
                                                  True, False)
    assert req.compare_alpha == 7.0
    single = TrainingModel.parse({"compare": False})
    assert TrainingModel.build_request(single).compare_alpha is None
    assert TrainingModel.build_request(p) == req  # a frozen request: equal parameters, equal
    assert len(req.configs()[0].frame_steps()) == p.frame_count()


def test_gallery_cases_are_valid_sessions_with_the_alpha_extremes():
    cases = TrainingModel.gallery_cases()
    assert "default" in cases
    alphas = {TrainingModel.parse(s).alpha for s in cases.values()}
    assert {1e-3, 1e3} <= alphas


def test_sessions_of_earlier_versions_are_read():
    """Earlier sessions held ``compare_alpha`` (null: one run) instead of compare/alpha2."""
    assert TrainingModel.parse({"compare_alpha": None, "alpha2": 5.0}).compare is False
    p = TrainingModel.parse({"compare_alpha": 30.0, "alpha2": 30.0, "alpha": 0.5})
    assert (p.compare, p.alpha2, p.alpha) == (True, 30.0, 0.5)
