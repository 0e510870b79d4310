"""The Qt-free parameter model every panel is built on.

A panel is a model (here, no Qt) plus a view (``ntkviz.gui.panels``) that only
observes it. The model holds one frozen, validated parameter dataclass; the
view writes through :meth:`ParamModel.update` and redraws when told. The same
model, filled from command-line arguments, drives ``ntkviz export <concept>``
and, filled from JSON, restores a session — so every field is validated in one
place (the dataclass's ``__post_init__``) and a figure has one code path.

Writing a model
---------------
1. A frozen dataclass of parameters with defaults. Annotate every field with a
   plain type (``int``, ``float``, ``bool``, ``str``, ``tuple[str, ...]``,
   ``tuple[float, ...]``, ``X | None``); :meth:`ParamModel.parse` converts JSON
   values by these annotations and refuses anything else. Check ranges in
   ``__post_init__`` with the one check family (``ntkviz._check``: ``check_int``,
   ``check_float``, ``check_bool``, ``check_choice``) against the ranges of
   ``ntkviz.limits``; they raise ``ValueError("<field> must be …, got …")``.
2. A :class:`ParamModel` subclass with ``Params = <that dataclass>``,
   ``display_only`` (fields that change only the drawing: toggling a guide
   line never recomputes), ``views`` (the exportable views,
   :class:`ntkviz.models.View`) and :meth:`ParamModel.build_request` returning
   the job (a frozen request of :mod:`ntkviz.jobs`) for a ``Params``.
3. Options of ``ntkviz export`` on the fields (:func:`ntkviz.models.option`), and
   optionally ``gallery_cases()`` (parameters worth looking at) and
   :meth:`ParamModel.csv_table` (the table of a view, when display-only fields
   choose its columns).

Every model keeps the history of its changes (:attr:`ParamModel.history`, a
:class:`ntkviz.models._history.ParamHistory`): :meth:`ParamModel.undo`,
:meth:`ParamModel.redo` and :meth:`ParamModel.reset` (to the defaults, one step) work for
every panel with no code of its own.
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, Callable, ClassVar

from ntkviz._check import shown
from ntkviz.models._history import ParamHistory

__all__ = ["ParamModel", "parse_params"]

Listener = Callable[[frozenset, bool], None]


class ParamModel:
    """An evented holder of one frozen ``Params`` dataclass.

    Listeners registered with :meth:`connect` are called as
    ``listener(changed_fields, recompute)`` after every effective change;
    ``recompute`` is False when only ``display_only`` fields changed (so undoing or
    redoing a display-only change recomputes nothing either).
    """

    #: the frozen dataclass of parameters (validates itself in ``__post_init__``)
    Params: ClassVar[type]
    #: fields that only change the drawing (no new computation)
    display_only: ClassVar[frozenset[str]] = frozenset()
    #: the exportable views (``--view``, File → Export, the gallery), in the figure's order
    views: ClassVar[tuple] = ()
    #: the view ``ntkviz export`` writes without ``--view`` (None: the first)
    default_view: ClassVar[str | None] = None
    #: field values every export starts from where they differ from the app's defaults
    #: (e.g. no autoplay in a file); the options given override them
    export_state: ClassVar[dict] = {}

    def __init__(self, params=None):
        self._params = self.Params() if params is None else params
        if not isinstance(self._params, self.Params):
            raise TypeError(f"params must be a {self.Params.__name__}, got {type(params).__name__}")
        self._listeners: list[Listener] = []
        #: the undo/redo history of the parameters (every effective change is recorded)
        self.history = ParamHistory(_same)

    # ------------------------------------------------------------------ state
    @property
    def params(self):
        """The current parameters (a frozen dataclass)."""
        return self._params

    def update(self, **changes) -> frozenset:
        """Set fields (validated by ``Params``; ``ValueError`` names the field and leaves
        the model unchanged). Returns the fields that actually changed."""
        names = {f.name for f in dataclasses.fields(self.Params)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ValueError(f"{type(self).__name__}: unknown parameter {unknown[0]!r}")
        return self.set_params(dataclasses.replace(self._params, **changes))

    def set_params(self, params, *, label: str = "") -> frozenset:
        """Replace all parameters at once (one notification, one undo step named
        ``label`` if given, e.g. "open session")."""
        if not isinstance(params, self.Params):
            raise TypeError(f"params must be a {self.Params.__name__}, got {type(params).__name__}")
        old, self._params = self._params, params
        changed = frozenset(f.name for f in dataclasses.fields(self.Params)
                            if not _same(getattr(old, f.name), getattr(params, f.name)))
        if changed:
            self.history.record(old, params, changed, label)
            recompute = bool(changed - self.display_only)
            for listener in list(self._listeners):
                listener(changed, recompute)
        return changed

    def connect(self, listener: Listener) -> None:
        """Call ``listener(changed_fields, recompute)`` after each change."""
        self._listeners.append(listener)

    def disconnect(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    # ------------------------------------------------------------ history
    def undo(self) -> frozenset:
        """Put back the parameters before the last step; returns the fields changed
        (empty when there is nothing to undo)."""
        return self._go_to(self.history.take_undo(), "before")

    def redo(self) -> frozenset:
        """Make the last undone step again; returns the fields changed."""
        return self._go_to(self.history.take_redo(), "after")

    def _go_to(self, step, side: str) -> frozenset:
        if step is None:
            return frozenset()
        with self.history.paused():
            return self.set_params(getattr(step, side))

    def reset(self) -> frozenset:
        """Every parameter back to its default (one undoable step)."""
        return self.set_params(self.Params(), label="reset to defaults")

    # ----------------------------------------------------------------- request
    def request(self):
        """The job for the current parameters."""
        return self.build_request(self._params)

    @classmethod
    def build_request(cls, params):
        """Return the job (a zero-argument callable, usually a frozen request) for ``params``."""
        raise NotImplementedError

    @classmethod
    def computation(cls, params):
        """``params`` with every ``display_only`` field at its default: two parameter sets
        with equal computations draw from the same response."""
        if not cls.display_only:
            return params
        defaults = cls.Params()
        return dataclasses.replace(params, **{f: getattr(defaults, f) for f in cls.display_only})

    @classmethod
    def same_computation(cls, a, b) -> bool:
        """Whether a response computed for ``a`` is a response for ``b``."""
        return a is not None and b is not None and _same(cls.computation(a), cls.computation(b))

    @classmethod
    def csv_table(cls, params, response, view: str):
        """``(header, rows)`` of ``view`` for ``response`` (computed for ``params``):
        exactly the numbers the view plots. Default: ``response.csv_table(view)``."""
        return response.csv_table(view)

    @classmethod
    def view_names(cls, params=None) -> list[str]:
        """The names of the exportable views (those that exist for ``params``, if given)."""
        return [v.name for v in cls.views if params is None or v.available(params)]

    # ---------------------------------------------------------------- sessions
    def to_session(self) -> dict:
        """The parameters as JSON-ready values (tuples become lists)."""
        return {f.name: _jsonable(getattr(self._params, f.name))
                for f in dataclasses.fields(self.Params)}

    @classmethod
    def parse(cls, state: Mapping, base=None):
        """A validated ``Params`` from JSON-like ``state``; missing keys keep ``base``'s
        values (default: the defaults). ``ValueError`` names the first bad field."""
        return parse_params(cls.Params, state, base)

    def restore(self, state: Mapping, label: str = "") -> frozenset:
        """Set every field given in ``state`` (all validated first: a bad field changes
        nothing); one undo step, named ``label`` if given."""
        return self.set_params(self.parse(state, self._params), label=label)


def parse_params(params_cls: type, state: Mapping, base=None):
    """Build ``params_cls`` from ``state``, converting each value by the field's
    annotation and refusing unknown keys and values of the wrong type."""
    if not isinstance(state, Mapping):
        raise ValueError(f"parameters must be an object of name: value pairs, got "
                         f"{type(state).__name__}")
    hints = typing.get_type_hints(params_cls)
    fields = {f.name for f in dataclasses.fields(params_cls) if f.init}
    for key in state:
        if key not in fields:
            raise ValueError(f"unknown parameter {key!r} (known: {', '.join(sorted(fields))})")
    values = {name: _convert(name, hints[name], state[name]) for name in state}
    base = params_cls() if base is None else base
    return dataclasses.replace(base, **values)


def _convert(name: str, hint: Any, value: Any):
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return _convert(name, inner[0], value)
        for a in inner:
            try:
                return _convert(name, a, value)
            except ValueError:
                continue
        raise ValueError(f"{name} has an unsupported value {value!r}")
    if origin is typing.Literal:
        if value not in args:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, args))}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{name} must be a list, got {_kind(value)}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(f"{name}[{i}]", args[0], v) for i, v in enumerate(value))
        if len(args) != len(value):
            raise ValueError(f"{name} must be a list of {len(args)} values, got {len(value)}")
        return tuple(_convert(f"{name}[{i}]", a, v) for i, (a, v) in enumerate(zip(args, value)))
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false, got {_kind(value)}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be an integer, got {_kind(value)}")
        if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        return int(value)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number, got {_kind(value)}")
        try:
            out = float(value)
        except OverflowError:
            raise ValueError(f"{name} is too large: {str(value)[:20]}…") from None
        if not math.isfinite(out):
            raise ValueError(f"{name} must be a finite number, got {out!r}")
        return out
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{name} must be a string, got {_kind(value)}")
        return value
    raise TypeError(f"parse_params: unsupported annotation {hint!r} for field {name!r}")


def _kind(value) -> str:
    return f"{type(value).__name__} {shown(value)}"


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # e.g. arrays: compare identity
        return a is b
