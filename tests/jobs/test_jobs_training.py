"""The lazy-training job (Qt-free): lock-step runs, cumulative partial responses, CSV
tables taken from the core frames, validation at the edge."""
from __future__ import annotations

import numpy as np
import pytest

from ntkviz.core.training.dynamics import TrainConfig, train
from ntkviz.jobs import Progress, TrainRequest, run_to_end

SMALL = dict(steps=300, frames=20)


def request(alpha=0.01, compare_alpha=None, **config):
    return TrainRequest(TrainConfig(alpha=alpha, width=20, samples=15, teacher=3,
                                    lr=config.pop("lr", 0.005), **config), compare_alpha)


def test_two_runs_share_draws_and_match_the_core():
    resp = request(0.02, 50.0, **SMALL)()
    assert resp.done and not resp.diverged and len(resp.runs) == 2
    a, b = resp.runs
    np.testing.assert_array_equal(a.setup.X_train, b.setup.X_train)
    np.testing.assert_array_equal(a.setup.a0, b.setup.a0)
    for run in resp.runs:
        cfg = run.setup.config
        alone = train(TrainConfig(alpha=cfg.alpha, width=20, samples=15, lr=0.005, **SMALL))
        np.testing.assert_array_equal(run.frames[-1].net, alone.frames[-1].net)
        np.testing.assert_array_equal(run.frames[-1].neurons, alone.frames[-1].neurons)


def test_iterate_yields_growing_cumulative_responses_and_returns_the_last():
    items = []
    final = run_to_end(request(**SMALL).iterate(), on_item=items.append)
    assert all(isinstance(i, Progress) for i in items)
    partials = [i.partial for i in items] + [final]
    counts = [len(r.runs[0].frames) for r in partials]
    assert counts == list(range(1, len(partials) + 1))
    assert [r.done for r in partials] == [False] * (len(partials) - 1) + [True]
    assert final.fraction == 1.0 and all(0 <= i.fraction <= 1 for i in items)


def test_diverging_run_keeps_the_other_running():
    resp = request(0.01, 100.0, lr=0.1, **SMALL)()
    small, lazy = resp.runs
    assert small.diverged and "diverged" in small.message and not lazy.diverged
    assert resp.frame_count == len(lazy.frames) > len(small.frames)
    assert resp.frame(0, resp.frame_count - 1) is small.frames[-1]  # held at its last frame
    assert "α = 0.01" in resp.message


def test_csv_tables_are_the_frames():
    resp = request(compare_alpha=100.0, **SMALL)()
    header, rows = resp.csv_table("metrics")
    assert header[:4] == ["alpha", "tau", "step", "time"]
    assert len(rows) == sum(len(r.frames) for r in resp.runs)
    first = resp.runs[0].frames[3]
    row = rows[3]
    assert row[2] == first.step and row[header.index("gap")] == first.metrics["gap"]
    header, rows = resp.csv_table("predictor", 5)
    run0 = [r for r in rows if r[0] == resp.runs[0].setup.config.alpha]
    np.testing.assert_array_equal([r[header.index("net")] for r in run0], resp.frame(0, 5).net)
    header, rows = resp.csv_table("neurons", -1)
    assert len(rows) == 2 * 20 and header[-2:] == ["p1", "p2"]
    with pytest.raises(ValueError, match="view"):
        resp.csv_table("nope")


@pytest.mark.parametrize("state,match", [({"width": 7}, "width"), ({"compare_alpha": -1.0},
                                         "compare_alpha"), ({"lr": float("inf")}, "lr"),
                                         ({"init": "zeros"}, "init")])
def test_bad_state_names_the_field(state, match):
    compare = state.pop("compare_alpha", 100.0)
    with pytest.raises(ValueError, match=match):
        TrainRequest(TrainConfig(**state), compare)
