"""Undo and redo of a model's parameter changes (Qt-free).

Every effective change of a :class:`ntkviz.models.ParamModel` is one *step*: the
parameters before and after, the fields that changed and an optional label ("reset to
defaults", "open session"). Undo puts the parameters back to a step's ``before``, redo to
its ``after``; a new change after an undo drops the steps that could be redone.

A slider drag is one step, not one per pixel: a change of the same fields as the
previous one, less than :data:`COALESCE_S` seconds after it, extends that step instead
of opening a new one. While the step is *held* (the view holds it while a slider is
pressed and seals it when the slider is released) every change sharing a field with the
previous one extends it, however long the drag pauses. A step whose merged changes lead
back to where it started disappears. Labelled changes (a reset, a session) are never
merged.

The texts of the Edit menu describe a step: one field as ``"depth 3 → 7"``, several as
``"3 changes"``, with the step's label in front when it has one
(``"reset to defaults (3 changes)"``).
"""
from __future__ import annotations

import dataclasses
import time
from contextlib import contextmanager
from typing import Any, Callable

__all__ = ["ParamHistory", "Step", "COALESCE_S", "MAX_STEPS", "describe_value"]

#: changes of the same fields closer than this (seconds) are one step
COALESCE_S = 0.8
#: the oldest steps are forgotten beyond this many
MAX_STEPS = 200


@dataclasses.dataclass
class Step:
    """One undoable change: ``before`` -> ``after`` (frozen parameter dataclasses)."""

    before: Any
    after: Any
    fields: frozenset
    label: str = ""
    last_fields: frozenset = frozenset()  # the fields of the latest change merged in
    last_time: float = 0.0
    sealed: bool = False

    def describe(self) -> str:
        """``"depth 3 → 7"``, ``"3 changes"`` or ``"<label> (…)"``."""
        if len(self.fields) == 1:
            (name,) = self.fields
            detail = (f"{name.replace('_', ' ')} {describe_value(getattr(self.before, name))} → "
                      f"{describe_value(getattr(self.after, name))}")
        else:
            detail = f"{len(self.fields)} changes"
        return f"{self.label} ({detail})" if self.label else detail


def describe_value(value, width: int = 18) -> str:
    """A parameter value as a short text: ``on``/``off``, numbers in ``%g``, lists joined
    by commas, ``none``; cut with "…" beyond ``width`` characters."""
    if isinstance(value, bool):
        text = "on" if value else "off"
    elif value is None:
        text = "none"
    elif isinstance(value, float):
        text = f"{value:g}"
    elif isinstance(value, tuple):
        text = ",".join(describe_value(v, width) for v in value) if value else "(none)"
    else:
        text = str(value)
    return text if len(text) <= width else text[:width - 1] + "…"


class ParamHistory:
    """The undo and redo stacks of one model.

    ``clock`` (seconds, monotonic) decides which changes are close enough to merge;
    tests pass their own. ``same(a, b)`` compares two parameter sets."""

    def __init__(self, same: Callable[[Any, Any], bool], clock: Callable[[], float] = time.monotonic,
                 limit: int = MAX_STEPS):
        self._same = same
        self.clock = clock
        self.limit = limit
        self._undo: list[Step] = []
        self._redo: list[Step] = []
        self._held = False
        self._paused = 0

    # ------------------------------------------------------------ recording
    def record(self, before, after, changed: frozenset, label: str = "") -> None:
        """Note the change ``before`` -> ``after`` of the fields ``changed`` (called by the
        model after every effective change; nothing while :meth:`paused`)."""
        if self._paused or not changed:
            return
        now = self.clock()
        self._redo.clear()
        last = self._undo[-1] if self._undo else None
        if last is not None and self._merges(last, changed, label, now):
            last.after = after
            last.fields = last.fields | changed
            last.last_fields, last.last_time = changed, now
            last.fields = frozenset(f for f in last.fields
                                    if not self._same(getattr(last.before, f), getattr(after, f)))
            if not last.fields:  # dragged back to where it started: nothing to undo
                self._undo.pop()
            return
        if last is not None:
            last.sealed = True
        self._undo.append(Step(before, after, changed, label, changed, now,
                               sealed=bool(label)))
        del self._undo[:-self.limit]

    def _merges(self, last: Step, changed: frozenset, label: str, now: float) -> bool:
        if last.sealed or label or last.label:
            return False
        if self._held:
            return bool(changed & last.last_fields)
        return changed == last.last_fields and now - last.last_time <= COALESCE_S

    def hold(self) -> None:
        """Merge the changes of the same fields into one step until :meth:`release` (a
        slider pressed): the first change after it opens a new step."""
        self.seal()
        self._held = True

    def release(self) -> None:
        """End a :meth:`hold` (a slider released): the step is complete."""
        self._held = False
        self.seal()

    def seal(self) -> None:
        """The next change opens a new step."""
        if self._undo:
            self._undo[-1].sealed = True

    @contextmanager
    def paused(self):
        """Changes within this block are not recorded (undo and redo themselves)."""
        self._paused += 1
        try:
            yield self
        finally:
            self._paused -= 1

    def clear(self) -> None:
        """Forget every step (a panel's starting parameters are not undoable)."""
        self._undo.clear()
        self._redo.clear()

    def __len__(self) -> int:
        return len(self._undo)

    def truncate(self, length: int) -> None:
        """Forget the steps after the first ``length`` ones and those that could be redone
        (a change that was rolled back)."""
        del self._undo[length:]
        self._redo.clear()

    # ------------------------------------------------------------ undo / redo
    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_text(self) -> str:
        """What :meth:`take_undo` would undo ("" when nothing)."""
        return self._undo[-1].describe() if self._undo else ""

    def redo_text(self) -> str:
        """What :meth:`take_redo` would redo ("" when nothing)."""
        return self._redo[-1].describe() if self._redo else ""

    def take_undo(self) -> Step | None:
        """The step to undo (moved to the redo stack); the model sets ``step.before``."""
        if not self._undo:
            return None
        step = self._undo.pop()
        step.sealed = True
        if self._undo:  # a change after an undo never extends an older step
            self._undo[-1].sealed = True
        self._redo.append(step)
        return step

    def take_redo(self) -> Step | None:
        """The step to redo (moved back to the undo stack); the model sets ``step.after``."""
        if not self._redo:
            return None
        step = self._redo.pop()
        self._undo.append(step)
        return step
