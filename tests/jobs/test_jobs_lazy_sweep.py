"""The lazy-sweep job (Qt-free): a partial response after every (α, seed), the final one
returned, statistics over seeds from the stored runs, validation at the edge; and the κ_α
read-out of the single-run job."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ntkviz.core.training.dynamics import TrainConfig, train
from ntkviz.core.training.laziness import FIRST_LAYER_NOTE, laziness
from ntkviz.core.training.random_features import CIRCLE_NOTE
from ntkviz.core.training.sweep import SWEEP_METRICS
from ntkviz.jobs import LazySweepRequest, TrainRequest
from ntkviz.jobs._lazy_sweep import SWEEP_CSV_HEADER
from ntkviz.jobs._run import run_to_end

SMALL = dict(alphas=(0.1, 10.0), widths=(8, 12), samples=6, steps=300, seeds=2)


def drain(gen):
    """(yielded partial responses, returned final response)."""
    items = []
    final = run_to_end(gen, lambda item: items.append(item.partial))
    return items, final


def test_iterate_yields_after_each_run_and_returns_the_final_response():
    request = LazySweepRequest(**SMALL)
    items, final = drain(request.iterate())
    finished = [int((i.status != 0).sum()) for i in items]
    assert finished == sorted(finished) and finished[-1] == request.run_count == 8
    # one item per finished run (steps < 2000: no item within a run)
    assert [f for f in finished] == list(range(1, 9))
    assert final.done and not any(i.done for i in items) and final.fraction == 1.0
    np.testing.assert_array_equal(final.values, items[-1].values)
    np.testing.assert_array_equal(request().values, final.values)  # __call__ runs to the end
    first = items[0]  # after one run: only (m = 8, α = 0.1, seed 0) is there
    assert np.isfinite(first.values[:, 0, 0, 0]).all() and np.isnan(first.values[:, :, :, 1]).all()
    assert first.runs()[0, 0] == 1 and first.runs().sum() == 1


def test_each_run_is_the_core_trainer():
    request = LazySweepRequest(**SMALL)
    resp = request()
    for (iw, m), (ia, alpha), k in [((1, 12), (0, 0.1), 1), ((0, 8), (1, 10.0), 0)]:
        cfg = request.config(alpha, m, k)
        assert cfg.seed == k and cfg.width == m and cfg.ntk_scaling and cfg.alpha == alpha
        final = train(cfg).frames[-1].metrics
        assert resp.values[0, iw, ia, k] == final["test_loss"]
        assert resp.values[4, iw, ia, k] == final["relative_displacement"]


def test_mean_and_sem_over_seeds():
    resp = LazySweepRequest(**{**SMALL, "seeds": 3})()
    for name in ("test_loss_net", "kappa_alpha"):
        v = resp.values[list(SWEEP_METRICS).index(name)]
        np.testing.assert_allclose(resp.mean(name), v.mean(axis=-1), rtol=1e-14)
        np.testing.assert_allclose(resp.sem(name), v.std(axis=-1, ddof=1) / math.sqrt(3), rtol=1e-12)
    # κ_α has the exact 1/α law at every width and seed (h(w0) = 0)
    kappa = resp.values[list(SWEEP_METRICS).index("kappa_alpha")]
    np.testing.assert_allclose(kappa[:, 0] / kappa[:, 1], 100.0, rtol=1e-12)
    with pytest.raises(ValueError, match="metric"):
        resp.mean("loss")


def test_csv_table_has_one_row_per_point_and_empty_undefined_cells():
    resp = LazySweepRequest(**{**SMALL, "seeds": 1})()
    header, rows = resp.csv_table()
    assert tuple(header) == SWEEP_CSV_HEADER and len(rows) == 4
    assert [(r[0], r[1]) for r in rows] == [(0.1, 8), (10.0, 8), (0.1, 12), (10.0, 12)]
    sem = header.index("test_loss_net_sem")
    assert all(r[sem] == "" for r in rows)  # one seed: no standard error, not a 0
    assert rows[0][header.index("runs")] == 1 and rows[0][header.index("ridge")] == ""


def test_closed_form_last_layer_and_first_layer_notes():
    last = LazySweepRequest(alphas=(1.0,), widths=(10, 40), layers="last", ridge=1e-6, samples=20,
                            seeds=2)
    assert last.resolved_init == "centered"
    resp = last()
    assert not resp.applies("test_loss_linear") and np.isnan(resp.mean("test_loss_linear")).all()
    header, rows = resp.csv_table()
    assert all(r[header.index("test_loss_linear")] == "" for r in rows)
    assert all(r[header.index("kappa_alpha")] == 0.0 for r in rows)
    assert CIRCLE_NOTE in resp.notes and "linear" in resp.crossover(0).note
    first = LazySweepRequest(alphas=(1.0, 100.0), widths=(8,), layers="first", samples=6, steps=200,
                             seeds=1)()
    assert FIRST_LAYER_NOTE in first.notes and not first.applies("kappa_alpha")
    assert np.isnan(first.mean("kappa_alpha")).all()
    assert "NTK" not in first.infinite_kernel and "κ0" in first.infinite_kernel


def test_stopping_the_generator_cancels():
    request = LazySweepRequest(alphas=(1.0, 2.0), widths=(8,), steps=5000, seeds=2, samples=5)
    gen = request.iterate()
    first = next(gen)  # progress within the first run (5000 steps: chunks of 2000)
    assert 0 < first.fraction < 0.25 and first.partial.runs().sum() == 0
    gen.close()


def test_diverged_runs_are_counted_and_explained():
    resp = LazySweepRequest(alphas=(1e-3, 10.0), widths=(20,), scaling="none", lr=0.05, steps=300,
                            seeds=2)()
    assert resp.runs()[0, 0] == 0 and resp.runs()[0, 1] == 2
    assert any("diverged" in n for n in resp.notes)
    header, rows = resp.csv_table()
    assert len(rows) == 1 and rows[0][0] == 10.0


@pytest.mark.parametrize("change,match", [
    (dict(alphas=()), "alphas needs"), (dict(alphas=(1.0, 1.0)), "twice"),
    (dict(alphas=(0.0,)), "alphas"), (dict(alphas=(float("nan"),)), "alphas"),
    (dict(widths=(9,)), "widths must be even"), (dict(widths=(1,)), "widths"),
    (dict(widths=(8.5,)), "widths must be an integer"), (dict(scaling="mup"), "scaling"),
    (dict(layers="middle"), "layers"), (dict(ridge=1e-3), "ridge applies"),
    (dict(layers="last", ridge=-1.0), "ridge"), (dict(seeds=0), "seeds"),
    (dict(seeds=3, seed=2**32 - 2), "seed"), (dict(gap=0.0), "gap"), (dict(lr=0.0), "lr"),
    (dict(samples=0), "samples"), (dict(noise=-1.0), "noise"), (dict(init="zero"), "init"),
])
def test_bad_requests_name_the_field(change, match):
    with pytest.raises(ValueError, match=match):
        LazySweepRequest(**change)


def test_alphas_and_widths_are_sorted():
    req = LazySweepRequest(alphas=(10, 0.1, 1), widths=(40, 8), layers="last", ridge=0.0)
    assert req.alphas == (0.1, 1.0, 10.0) and req.widths == (8, 40)
    assert LazySweepRequest(widths=(9,), init="centered").widths == (9,)


def test_single_run_reports_kappa_alpha():
    resp = TrainRequest(TrainConfig(alpha=0.5, steps=20, frames=2), 50.0)()
    setup = resp.runs[0].setup
    assert resp.kappa_alpha == pytest.approx((laziness(setup).kappa(0.5), laziness(setup).kappa(50.0)),
                                             rel=1e-14)
    assert resp.kappa_alpha[0] / resp.kappa_alpha[1] == pytest.approx(100.0, rel=1e-12)


def test_a_set_of_scalings_is_each_sweep_alone():
    """One sweep per scaling, run one after the other: each equals the sweep run alone; the
    partial responses grow by one run at a time across the sweeps; the table is the sweeps'
    rows one after the other."""
    from ntkviz.jobs import LazySweepSetRequest

    small = dict(alphas=(0.5, 5.0), widths=(8,), samples=6, steps=200, seeds=2)
    request = LazySweepSetRequest.of(("ntk", "meanfield"), **small)
    assert request.scalings == ("ntk", "meanfield") and request.run_count == 8
    items, final = drain(request.iterate())
    alone = [LazySweepRequest(scaling=s, **small)() for s in ("ntk", "meanfield")]
    for got, want in zip(final.responses, alone):
        np.testing.assert_array_equal(got.values, want.values)
        np.testing.assert_array_equal(got.status, want.status)
    assert [i.finished_runs for i in items] == list(range(1, 9)) and final.finished_runs == 8
    assert final.done and not any(i.done for i in items)
    first = items[0]  # the mean-field sweep has not started: all its values are missing
    assert np.isnan(first.responses[1].values).all() and first.responses[1].runs().sum() == 0
    header, rows = final.csv_table()
    assert tuple(header) == SWEEP_CSV_HEADER
    assert rows == alone[0].csv_table()[1] + alone[1].csv_table()[1]
    assert [r[2] for r in rows] == ["ntk", "ntk", "meanfield", "meanfield"]
    with pytest.raises(ValueError, match="twice"):
        LazySweepSetRequest.of(("ntk", "ntk"), **small)
    with pytest.raises(ValueError, match="scalings"):
        LazySweepSetRequest.of((), **small)


def test_stopping_a_set_stops_the_sweep_running():
    from ntkviz.jobs import LazySweepSetRequest

    request = LazySweepSetRequest.of(("ntk", "none"), alphas=(1.0,), widths=(8,), steps=5000,
                                     seeds=1, samples=5)
    gen = request.iterate()
    item = next(gen)  # within the first run of the first sweep
    assert 0 < item.fraction < 0.5 and item.partial.finished_runs == 0
    gen.close()
    assert gen.gi_frame is None
