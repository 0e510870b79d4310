"""Undo, redo and reset of every panel's model (Qt-free).

Every model of :data:`ntkviz.panels.PANELS` (a panel added later included) is driven
through random valid edits; undo must walk back through exactly the parameters seen
after each edit, and redo forward again. Candidate values come from the field's type,
the model's gallery cases and the choices its own validation names, so no model needs
test code of its own.
"""
from __future__ import annotations

import dataclasses
import random
import re
import typing

import pytest

from ntkviz import panels
from ntkviz.models import ParamModel
from ntkviz.models._history import COALESCE_S, describe_value

EDITS = 20


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _choices_named_by(model: ParamModel, name: str) -> list:
    """The values a choice field accepts, read from the model's own refusal
    ("<name> must be one of a, b, c, got …")."""
    try:
        model.Params(**{**_fields(model.params), name: "\u2400not-a-choice"})
    except (ValueError, TypeError) as exc:
        found = re.search(r"one of (.+?)[;,]? got ", str(exc))
        if found:
            return [c.strip().strip("'") for c in found.group(1).split(",")]
    return []


def _fields(params) -> dict:
    return {f.name: getattr(params, f.name) for f in dataclasses.fields(params) if f.init}


def _gallery_values(model_cls, name: str) -> list:
    cases = model_cls.gallery_cases() if hasattr(model_cls, "gallery_cases") else {}
    out = []
    for state in cases.values():
        if name in state:
            try:
                out.append(getattr(model_cls.parse({name: state[name]}), name))
            except ValueError:  # valid only together with other fields of its case
                out.append(getattr(model_cls.parse(state), name))
    return out


def _candidates(model: ParamModel, name: str, hint, rng: random.Random) -> list:
    """Values worth trying for field ``name`` now."""
    current = getattr(model.params, name)
    out = _gallery_values(type(model), name)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        out.append(None)
        hint = next(a for a in args if a is not type(None))
        origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bool:
        out.append(not current)
    elif hint is int and isinstance(current, int):
        out += [current + d for d in (-5, -2, -1, 1, 2, 5, 10)]
    elif hint is float and isinstance(current, float):
        out += [current * rng.choice((0.5, 0.8, 1.25, 2.0)), current + rng.uniform(-1, 1),
                round(rng.uniform(0, 2), 3)]
    elif hint is str:
        out += _choices_named_by(model, name)
    elif origin is tuple and isinstance(current, tuple) and current:
        out += [current[:-1], current[1:], tuple(reversed(current))]
    return [v for v in out if v != current]


def _random_edit(model: ParamModel, rng: random.Random) -> frozenset:
    """One random effective edit of one or two fields (retried until valid)."""
    hints = typing.get_type_hints(model.Params)
    names = [f.name for f in dataclasses.fields(model.Params) if f.init]
    for _ in range(3000):
        changes = {}
        for name in rng.sample(names, rng.choice((1, 1, 1, 2))):
            options = _candidates(model, name, hints[name], rng)
            if options:
                changes[name] = rng.choice(options)
        if not changes:
            continue
        try:
            changed = model.update(**changes)
        except (ValueError, TypeError):
            continue
        if changed:
            return changed
    raise AssertionError(f"{type(model).__name__}: no valid random edit found")


@pytest.mark.parametrize("key", panels.keys())
def test_random_edits_undo_back_and_redo_forward(key):
    """20 random valid edits, undone one by one back to the defaults and redone to the
    end, comparing the whole ``Params`` after every step; an undone display-only change
    never asks for a recomputation."""
    model = panels.model_class(key)()
    clock = FakeClock()
    model.history.clock = clock
    rng = random.Random(f"history-{key}")
    seen = [model.params]
    for _ in range(EDITS):
        clock.now += 10 * COALESCE_S  # every edit its own step
        _random_edit(model, rng)
        seen.append(model.params)
    assert len(model.history) == EDITS
    events = []
    model.connect(lambda changed, recompute: events.append((changed, recompute)))
    for i in range(EDITS, 0, -1):
        assert model.history.can_undo()
        changed = model.undo()
        assert model.params == seen[i - 1], f"{key}: undo {EDITS - i + 1}"
        assert changed and events[-1] == (changed, bool(changed - model.display_only))
    assert not model.history.can_undo() and model.undo() == frozenset()
    assert model.params == type(model)().params
    for i in range(1, EDITS + 1):
        model.redo()
        assert model.params == seen[i], f"{key}: redo {i}"
    assert not model.history.can_redo()


@pytest.mark.parametrize("key", panels.keys())
def test_reset_is_one_undoable_step(key):
    model = panels.model_class(key)()
    rng = random.Random(f"reset-{key}")
    for _ in range(3):
        model.history.seal()
        _random_edit(model, rng)
    edited, steps = model.params, len(model.history)
    if edited == type(model)().params:
        pytest.skip("the random edits led back to the defaults")
    model.reset()
    assert model.params == type(model)().params
    assert len(model.history) == steps + 1
    assert model.history.undo_text().startswith("reset to defaults (")
    model.undo()
    assert model.params == edited


# -------------------------------------------------------------- merging and texts
@dataclasses.dataclass(frozen=True)
class _Params:
    depth: int = 3
    bias: float = 0.0
    guides: bool = True
    kernels: tuple[str, ...] = ("ntk", "arccos1")

    def __post_init__(self):
        if not 2 <= self.depth <= 50:
            raise ValueError(f"depth must be in [2, 50], got {self.depth}")


class _Model(ParamModel):
    Params = _Params
    display_only = frozenset({"guides"})


@pytest.fixture
def model():
    m = _Model()
    m.history.clock = FakeClock()
    return m


def test_a_drag_of_one_field_is_one_step(model):
    clock = model.history.clock
    for depth in range(4, 40):  # a slider dragged: a change every 30 ms
        clock.now += 0.03
        model.update(depth=depth)
    assert len(model.history) == 1
    assert model.history.undo_text() == "depth 3 → 39"
    model.undo()
    assert model.params.depth == 3
    assert model.history.redo_text() == "depth 3 → 39"


def test_pauses_other_fields_and_seals_open_new_steps(model):
    clock = model.history.clock
    model.update(depth=4)
    clock.now += 0.1
    model.update(bias=0.5)  # another field: a new step
    clock.now += 0.1
    model.update(bias=0.7)  # the same field soon after: merged
    clock.now += 2 * COALESCE_S
    model.update(bias=0.9)  # the same field after a pause: a new step
    model.history.seal()  # e.g. a slider released
    clock.now += 0.01
    model.update(bias=1.0)
    texts = []
    while model.history.can_undo():
        texts.append(model.history.undo_text())
        model.undo()
    assert texts == ["bias 0.9 → 1", "bias 0.7 → 0.9", "bias 0 → 0.7", "depth 3 → 4"]


def test_held_changes_merge_until_released_and_a_drag_back_leaves_no_step(model):
    clock = model.history.clock
    model.history.hold()  # a slider pressed: even a long pause keeps one step
    for depth in (5, 9, 12):
        clock.now += 5.0
        model.update(depth=depth)
    model.history.release()
    assert len(model.history) == 1 and model.history.undo_text() == "depth 3 → 12"
    model.history.hold()
    model.update(depth=20)
    model.update(depth=12)  # dragged back to where this drag began
    model.history.release()
    assert len(model.history) == 1
    model.history.hold()  # a drag is one step even when it sets a second field on the way
    model.update(depth=14)
    model.update(depth=15, bias=1.0)
    model.update(depth=16)
    model.history.release()
    assert len(model.history) == 2 and model.history.undo_text() == "2 changes"
    model.undo()
    assert model.params == _Params(depth=12)


def test_several_fields_labels_and_values_in_texts(model):
    model.update(depth=5, kernels=("ntk",), guides=False)
    assert model.history.undo_text() == "3 changes"
    model.reset()
    assert model.history.undo_text() == "reset to defaults (3 changes)"
    model.undo()
    model.update(kernels=("ntk", "nngp", "arccos0", "arccos1"))
    assert model.history.undo_text() == "kernels ntk → ntk,nngp,arccos0,…"
    model.restore({"guides": True}, label="open session")
    assert model.history.undo_text() == "open session (guides off → on)"


def test_a_new_change_drops_the_redo_steps(model):
    model.update(depth=5)
    model.history.seal()
    model.update(depth=6)
    model.undo()
    assert model.history.can_redo()
    model.update(bias=1.0)
    assert not model.history.can_redo()
    assert model.redo() == frozenset()
    model.undo()
    assert model.params == _Params(depth=5)


def test_undo_of_a_display_only_change_asks_for_no_computation(model):
    events = []
    model.update(guides=False)
    model.connect(lambda changed, recompute: events.append((set(changed), recompute)))
    model.undo()
    model.redo()
    assert events == [({"guides"}, False), ({"guides"}, False)]


def test_refused_changes_and_non_changes_are_not_steps(model):
    with pytest.raises(ValueError):
        model.update(depth=99)
    model.update(depth=3)
    assert len(model.history) == 0


def test_the_oldest_steps_are_forgotten(model):
    model.history.limit = 5
    for depth in range(4, 14):
        model.history.seal()
        model.update(depth=depth)
    assert len(model.history) == 5
    while model.history.can_undo():
        model.undo()
    assert model.params.depth == 8


@pytest.mark.parametrize("value, text", [
    (True, "on"), (None, "none"), (0.001, "0.001"), (1e-12, "1e-12"), ((), "(none)"),
    ((3, 5), "3,5"), ("M1", "M1"), ("x" * 40, "x" * 17 + "…"),
])
def test_values_are_described_shortly(value, text):
    assert describe_value(value) == text
