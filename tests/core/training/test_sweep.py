"""Sweep points and their summaries (ntkviz.core.training.sweep): a point is the final frame of
the single-run trainer or the closed-form fit; the crossover and the slopes against exact
power laws."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.training.dynamics import train
from ntkviz.core.training.sweep import (DEFAULT_ALPHAS, SWEEP_METRICS, crossover, loglog_slope, measure,
                                        prepare, relative_gap, sweep_config)
from ntkviz.jobs._run import run_to_end


def run(gen):
    """(returned point, progress items) of a :func:`measure` generator."""
    fractions = []
    return run_to_end(gen, fractions.append), fractions


def test_default_grid_is_two_per_decade():
    assert len(DEFAULT_ALPHAS) == 13 and DEFAULT_ALPHAS[0] == 0.01 and DEFAULT_ALPHAS[-1] == 1e4
    np.testing.assert_allclose(np.diff(np.log10(DEFAULT_ALPHAS)), 0.5, atol=1e-6)


@pytest.mark.parametrize("scaling", ["ntk", "meanfield", "none"])
def test_gradient_descent_point_is_the_trainers_last_frame(scaling):
    cfg = sweep_config(0.5, 12, 3, scaling=scaling, samples=8, lr=0.002, steps=4500)
    assert cfg.frames == 3 and not cfg.log_time  # progress at least every 2000 steps
    point, fractions = run(measure(cfg, prepare(cfg)))
    assert fractions == pytest.approx([1500 / 4500, 3000 / 4500])  # progress inside the run
    final = train(cfg).frames[-1].metrics
    assert point.metrics["test_loss_net"] == final["test_loss"]
    assert point.metrics["test_loss_linear"] == final["linear_test_loss"]
    assert point.metrics["test_loss_kernel"] == final["ntk_test_loss"]
    assert point.metrics["displacement"] == final["relative_displacement"]
    assert point.metrics["flip_share"] == final["flip_share"] and not point.diverged
    assert set(point.metrics) == set(SWEEP_METRICS)


def test_diverged_point_is_all_nan():
    cfg = sweep_config(1e-3, 20, 0, scaling="none", lr=5.0, steps=200)
    point, _ = run(measure(cfg, prepare(cfg)))
    assert point.diverged and "diverged" in point.message
    assert all(math.isnan(v) for v in point.metrics.values())


def test_closed_form_point():
    cfg = sweep_config(4.0, 30, 1, layers="last", init="centered", dim=5, samples=20, noise=0.1)
    prepared = prepare(cfg, ridge=1e-4)
    point, fractions = run(measure(cfg, prepared))
    assert fractions == []  # nothing to train
    m = point.metrics
    assert math.isnan(m["test_loss_linear"])  # no separate linearisation: empty, not 0
    assert m["kernel_drift"] == 0.0 and m["flip_share"] == 0.0 and m["kappa_alpha"] == 0.0
    fit, setup = prepared.fit, prepared.setup
    assert m["displacement"] == pytest.approx(
        np.linalg.norm(fit.weights) / (4.0 * np.linalg.norm(setup.a0)), rel=1e-12)
    assert m["train_loss_net"] == pytest.approx(0.5 * np.mean((fit.train - setup.y_train) ** 2))


def test_crossover_of_a_power_law_is_exact():
    alphas = np.logspace(-2, 4, 13)
    linear = np.full(13, 2.0)
    net = linear * (1 + 0.3 / alphas**2)  # relative gap 0.3/α² -> α* = √(0.3/0.1) = √3
    found = crossover(alphas, net, linear, 0.1)
    assert found.alpha == pytest.approx(math.sqrt(3.0), rel=1e-12) and found.note == ""
    net_worse = linear * (1 - 0.3 / alphas**2)
    assert crossover(alphas, net_worse, linear, 0.1).alpha == pytest.approx(math.sqrt(3.0), rel=1e-12)
    # missing points are skipped; a grid that does not bracket α* says so
    net_gap = net.copy()
    net_gap[6] = np.nan
    assert crossover(alphas, net_gap, linear, 0.1).alpha == pytest.approx(math.sqrt(3.0), rel=1e-12)
    assert "below the grid" in crossover(alphas, linear * 1.01, linear, 0.1).note
    assert "above the grid" in crossover(alphas, linear * 1.5, linear, 0.1).note
    assert math.isnan(crossover(alphas, linear * 1.5, linear, 0.1).alpha)


def test_relative_gap_and_slope():
    np.testing.assert_allclose(relative_gap([1.1, 0.5], [1.0, 1.0]), [0.1, 0.5])
    x = np.geomspace(1, 100, 7)
    assert loglog_slope(x, 3 * x**-0.5) == pytest.approx(-0.5, abs=1e-12)
    assert loglog_slope(x, np.where(x > 10, np.nan, x)) == pytest.approx(1.0, abs=1e-12)
    assert math.isnan(loglog_slope([1.0], [1.0]))
