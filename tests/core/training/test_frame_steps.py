"""The frame timeline of a lazy-training run: every frame asked for is recorded.

``frames`` counts the frames after the initialisation. Log-spaced steps used to be
rounded and merged, so 120 frames over 10000 steps recorded 99 (the timeline read
'frame 100/100'). Checked against NumPy's geomspace / linspace and closed forms.
"""
from __future__ import annotations

import numpy as np
import pytest

from ntkviz.core.training._train_config import TrainConfig, frame_steps


@pytest.mark.parametrize("log_time", [True, False])
def test_as_many_distinct_frames_as_asked_or_one_per_step(log_time):
    for steps in [*range(1, 40), 400, 5000, 10_000, 1_000_000]:
        for frames in [*range(1, 40), 120, 500, 2000]:
            got = frame_steps(steps, frames, log_time)
            assert got[0] == 0 and got[-1] == steps, (steps, frames)
            assert np.all(np.diff(got) >= 1), (steps, frames)
            assert len(got) == 1 + min(frames, steps), (steps, frames, len(got))


def test_the_default_run_records_its_120_frames():
    assert len(TrainConfig(steps=10_000, frames=120).frame_steps()) == 121
    # what the old rule kept: the distinct rounded log-spaced steps, and step 0
    merged = np.unique(np.concatenate([[0], np.rint(np.geomspace(1, 10_000, 120))]))
    assert len(merged) == 100


@pytest.mark.parametrize("steps, frames", [(1_000_000, 20), (100_000, 12), (10_000, 5)])
def test_log_spaced_is_geomspace_when_no_two_steps_round_alike(steps, frames):
    want = np.rint(np.geomspace(1, steps, frames)).astype(np.int64)
    assert len(np.unique(want)) == frames  # the case: geomspace has no repeats
    np.testing.assert_array_equal(frame_steps(steps, frames)[1:], want)


def test_crowded_start_takes_consecutive_steps_then_stays_log_spaced():
    steps, frames = 10_000, 120
    got = frame_steps(steps, frames)[1:]
    head = int(np.argmax(np.diff(got) > 1)) + 1  # frames 1, 2, …, head are steps 1..head
    np.testing.assert_array_equal(got[:head], np.arange(1, head + 1))
    assert 10 < head < 40
    # the rest: geometric from the last consecutive step to the end, up to rounding
    # (half a step at the start, relative to the anchor, carried along the sequence)
    rest = got[head - 1:]
    ideal = rest[0] * (steps / rest[0]) ** (np.arange(len(rest)) / (len(rest) - 1))
    assert np.all(np.abs(rest - ideal) <= 1 + 0.5 * ideal / rest[0])


@pytest.mark.parametrize("steps, frames", [(10_000, 120), (30, 7), (1000, 1000)])
def test_evenly_spaced_is_linspace(steps, frames):
    want = np.rint(np.linspace(0, steps, frames + 1)).astype(np.int64)
    np.testing.assert_array_equal(frame_steps(steps, frames, log_time=False), want)
