"""The sweep fields of the lazy-training model (no Qt): checked at the edge, kept by sessions, never
restarting the single run, and the sweep request built from them and the shared data fields."""
from __future__ import annotations

import json

import pytest

from ntkviz.models.training import SWEEP_FIELDS, SWEEP_VIEWS, TrainingModel, TrainingParams


def test_the_sweep_request_carries_the_sweep_and_the_shared_data_fields():
    p = TrainingModel.parse({"sweep_alphas": [10.0, 0.1], "sweep_widths": [40, 8],
                             "sweep_scalings": ["meanfield", "ntk"], "sweep_train": "last",
                             "sweep_noise": 0.2, "sweep_ridge": 1e-6, "sweep_seeds": 4,
                             "sweep_init": "symmetric", "sweep_gap": 0.25, "dim": 5, "samples": 30,
                             "teacher": 2, "lr": 0.01, "steps": 70, "seed": 9})
    request = TrainingModel.sweep_request(p)
    assert request.scalings == ("meanfield", "ntk")  # in the order asked: one sweep each
    for sweep in request.sweeps:
        assert (sweep.alphas, sweep.widths, sweep.layers, sweep.noise, sweep.ridge, sweep.seeds,
                sweep.init, sweep.gap) == ((0.1, 10.0), (8, 40), "last", 0.2, 1e-6, 4, "symmetric",
                                           0.25)
        assert (sweep.dim, sweep.samples, sweep.teacher, sweep.lr, sweep.steps, sweep.seed) == \
            (5, 30, 2, 0.01, 70, 9)
    auto = TrainingModel.sweep_request(TrainingModel.parse({"sweep_train": "last"}))
    assert auto.sweeps[0].init is None and auto.sweeps[0].resolved_init == "centered"
    assert TrainingModel.sweep_request(p) == request  # frozen: equal parameters, equal requests


def test_defaults_are_the_sweeps_of_the_command_line():
    from ntkviz.jobs import LazySweepRequest

    sweep = TrainingModel.sweep_request(TrainingParams()).sweeps[0]
    assert sweep == LazySweepRequest()  # 13 α from 1e-2 to 1e4, m = 20, NTK scaling, 3 seeds


def test_sweep_fields_never_restart_the_single_run():
    model = TrainingModel()
    calls = []
    model.connect(lambda changed, recompute: calls.append((set(changed), recompute)))
    model.update(sweep_alphas=(1.0, 2.0))
    model.update(sweep_seeds=5, sweep_train="first")
    model.update(page="sweep", sweep_plot="width", sweep_x="tau", sweep_metric="kappa_alpha")
    model.update(steps=500)  # shared with the single run: recomputes it
    assert [r for _, r in calls] == [False, False, False, True]
    # a single run's response answers every sweep: they differ in sweep fields only
    assert TrainingModel.same_computation(TrainingParams(steps=500),
                                          TrainingParams(steps=500, sweep_seeds=7, page="sweep"))
    assert not TrainingModel.same_computation(TrainingParams(), TrainingParams(steps=500))
    assert SWEEP_FIELDS <= TrainingModel.display_only


@pytest.mark.parametrize("state,message", [
    ({"sweep_alphas": []}, "sweep_alphas must be a non-empty list"),
    ({"sweep_alphas": [0.0]}, "sweep_alphas must be in [0.0001, 1e+06]"),
    ({"sweep_alphas": [1, 1.0]}, "sweep_alphas must not repeat a value"),
    ({"sweep_widths": [1]}, "sweep_widths must be in [2, 65536]"),
    ({"sweep_widths": [25]}, "sweep: widths must be even with the symmetric initialisation"),
    ({"sweep_scalings": ["mup"]}, "sweep_scalings must be one of ntk, meanfield, none"),
    ({"sweep_train": "middle"}, "sweep_train must be one of all, last, first"),
    ({"sweep_noise": -1}, "sweep_noise must be in [0, 1000]"),
    ({"sweep_ridge": 1e-3}, "sweep_ridge applies to the last layer trained alone"),
    ({"sweep_train": "last", "sweep_ridge": -1}, "sweep_ridge must be in [0, 1e+06]"),
    ({"sweep_seeds": 0}, "sweep_seeds must be in [1, 100]"),
    ({"sweep_gap": 0}, "sweep_gap must be in (0, 10]"),
    ({"sweep_init": "zero"}, "sweep_init must be one of auto, symmetric, centered"),
    ({"page": "both"}, "page must be one of run, sweep"),
    ({"sweep_plot": "scatter"}, "sweep_plot must be one of alpha, width, double_descent"),
    ({"sweep_metric": "gap"}, "sweep_metric must be one of"),
    ({"seed": 2**32 - 2}, "sweep: seed must be in [0, 4294967293]"),
])
def test_bad_sweep_fields_are_refused_by_name(state, message):
    model = TrainingModel()
    with pytest.raises(ValueError) as info:
        model.restore(state)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert model.params == TrainingParams()


def test_sweep_fields_survive_a_session_through_json():
    model = TrainingModel()
    model.restore({"page": "sweep", "sweep_alphas": [0.1, 1.0, 10.0], "sweep_widths": [16, 64],
                   "sweep_scalings": ["ntk", "meanfield"], "sweep_train": "last",
                   "sweep_ridge": 1e-8, "sweep_noise": 0.1, "sweep_seeds": 2, "sweep_init": "centered",
                   "sweep_gap": 0.2, "sweep_plot": "double_descent", "sweep_x": "tau",
                   "sweep_metric": "flip_share"})
    saved = json.loads(json.dumps(model.to_session()))
    other = TrainingModel()
    other.restore(saved)
    assert other.params == model.params and other.to_session() == saved
    assert TrainingModel.parse({**saved, "sweep_ridge": None}).sweep_ridge is None


def test_sweep_views_exist_on_the_sweep_page_and_their_export_shows_it():
    assert set(SWEEP_VIEWS.values()) <= set(TrainingModel.view_names())
    run = TrainingModel.view_names(TrainingParams())
    assert not set(SWEEP_VIEWS.values()) & set(run)
    on_page = TrainingModel.view_names(TrainingParams(page="sweep"))
    assert set(SWEEP_VIEWS.values()) <= set(on_page)
    for plot, name in SWEEP_VIEWS.items():
        view = next(v for v in TrainingModel.views if v.name == name)
        assert view.shows == {"page": "sweep", "sweep_plot": plot}


def test_gallery_sweep_cases_are_valid_and_cover_the_figures():
    cases = TrainingModel.gallery_cases()
    sweeps = {k: TrainingModel.parse(s) for k, s in cases.items() if s.get("page") == "sweep"}
    assert {p.sweep_plot for p in sweeps.values()} == {"alpha", "width", "double_descent"}
    assert any(p.sweep_seeds == 1 for p in sweeps.values())
    assert any(p.dim == 2 and p.sweep_plot == "double_descent" for p in sweeps.values())
    assert any(p.dim == 10 and p.sweep_plot == "double_descent" for p in sweeps.values())
    assert any(p.sweep_scalings == ("ntk", "meanfield") for p in sweeps.values())
