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
   ``__post_init__`` and raise ``ValueError("<field> must be …, got …")``.
2. A :class:`ParamModel` subclass with ``Params = <that dataclass>``,
   ``display_only`` (fields that change only the drawing: toggling a guide
   line never recomputes) and :meth:`ParamModel.build_request` returning the
   job (a frozen request of :mod:`ntkviz.jobs`) for a ``Params``.
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, Callable, ClassVar

__all__ = ["ParamModel", "parse_params", "check_int", "check_float", "check_bool", "check_choice",
           "shown"]

Listener = Callable[[frozenset, bool], None]


class ParamModel:
    """An evented holder of one frozen ``Params`` dataclass.

    Listeners registered with :meth:`connect` are called as
    ``listener(changed_fields, recompute)`` after every effective change;
    ``recompute`` is False when only ``display_only`` fields changed.
    """

    #: the frozen dataclass of parameters (validates itself in ``__post_init__``)
    Params: ClassVar[type]
    #: fields that only change the drawing (no new computation)
    display_only: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, params=None):
        self._params = self.Params() if params is None else params
        if not isinstance(self._params, self.Params):
            raise TypeError(f"params must be a {self.Params.__name__}, got {type(params).__name__}")
        self._listeners: list[Listener] = []

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

    def set_params(self, params) -> frozenset:
        """Replace all parameters at once (one notification)."""
        if not isinstance(params, self.Params):
            raise TypeError(f"params must be a {self.Params.__name__}, got {type(params).__name__}")
        old, self._params = self._params, params
        changed = frozenset(f.name for f in dataclasses.fields(self.Params)
                            if not _same(getattr(old, f.name), getattr(params, f.name)))
        if changed:
            recompute = bool(changed - self.display_only)
            for listener in list(self._listeners):
                listener(changed, recompute)
        return changed

    def connect(self, listener: Listener) -> None:
        """Call ``listener(changed_fields, recompute)`` after each change."""
        self._listeners.append(listener)

    def disconnect(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    # ----------------------------------------------------------------- request
    def request(self):
        """The job for the current parameters."""
        return self.build_request(self._params)

    @classmethod
    def build_request(cls, params):
        """Return the job (a zero-argument callable, usually a frozen request) for ``params``."""
        raise NotImplementedError

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

    def restore(self, state: Mapping) -> frozenset:
        """Set every field given in ``state`` (all validated first: a bad field changes
        nothing)."""
        return self.set_params(self.parse(state, self._params))


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


def shown(value) -> str:
    """``repr(value)`` cut to 24 characters (a 400-digit number stays one short line; an
    integer too long for ``repr`` is described)."""
    try:
        text = repr(value)
    except ValueError:  # an int beyond Python's str conversion limit (4300 digits by default)
        return "an integer of over 4300 digits"
    return text if len(text) <= 24 else text[:21] + "…"


def _kind(value) -> str:
    return f"{type(value).__name__} {shown(value)}"


# ----------------------------------------------- range checks for __post_init__
def check_int(name: str, value, bounds: tuple) -> None:
    """``ValueError`` unless ``value`` is an ``int`` (not a bool) in ``[lo, hi]``."""
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {shown(value)}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {shown(value)}")


def check_float(name: str, value, bounds: tuple) -> None:
    """``ValueError`` unless ``value`` is a finite real number (not a bool) in ``[lo, hi]``."""
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number in [{lo:g}, {hi:g}], got {shown(value)}")
    if not (math.isfinite(value) and lo <= value <= hi):
        raise ValueError(f"{name} must be in [{lo:g}, {hi:g}], got {shown(value)}")


def check_bool(name: str, value) -> None:
    """``ValueError`` unless ``value`` is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {shown(value)}")


def check_choice(name: str, value, choices) -> None:
    """``ValueError`` unless ``value`` is one of ``choices``."""
    if value not in tuple(choices):
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}, got {shown(value)}")


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # e.g. arrays: compare identity
        return a is b
