"""What a model declares beside its parameters: command-line options and views.

A panel's ``ntkviz export <key>`` is generated from its model (see
:mod:`ntkviz.cli._export`): every ``Params`` field that carries an :class:`Option`
becomes one command-line option, and the model's ``views`` become ``--view``. The
declarations are plain data (standard library only), so the command line builds its
parser without importing the numeric core or Qt.

Declaring an option
-------------------
On a field of the model's own ``Params`` dataclass, with :func:`option`::

    depth: int = option(2, "--depth", "depth L of NTK/NNGP, 2..50", metavar="L",
                        requires=Requires("kernels", ("ntk", "nngp"), "ntk and nngp only"))

For a field the ``Params`` class inherits from a dataclass of another layer (the
deformation of :mod:`ntkviz.core`, the settings of :mod:`ntkviz.dataset`), list it in
the class attribute ``OPTIONS = {"field": Option(...)}`` instead. Either way the model
stays the one place that says which option sets which field, so a refused value is
reported under the option the user typed.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Option", "Requires", "View", "option", "options_of"]

#: marks an option that takes a value (the default of :attr:`Option.value`)
TAKES_VALUE = object()


@dataclass(frozen=True)
class Requires:
    """An option that applies only when field ``field`` holds one of ``values`` (or, for
    a tuple field, contains one of them); given otherwise, it is refused with
    ``"<flag> applies to <text>"``. ``text`` may name fields in braces, e.g.
    ``"ntk and nngp only; --kernels is {kernels}"`` (lists joined by commas)."""

    field: str
    values: tuple
    text: str

    def holds(self, value) -> bool:
        items = value if isinstance(value, tuple) else (value,)
        return any(v in self.values for v in items)

    def message(self, flag: str, state: Mapping) -> str:
        shown = {k: ",".join(map(str, v)) if isinstance(v, (tuple, list)) else v
                 for k, v in state.items()}
        return f"{flag} applies to {self.text.format_map(_Missing(shown))}"


class _Missing(dict):
    def __missing__(self, key):
        return "{" + key + "}"


@dataclass(frozen=True)
class Option:
    """The command-line option that sets one ``Params`` field.

    Parameters
    ----------
    flag : str
        ``"--depth"``; error messages about the field start with it.
    help : str
        One line for ``--help`` (ranges included).
    metavar : str, optional
    value : object
        For a flag that takes no value: the field's value when the flag is given (``True``
        for ``--normalize``, ``False`` for ``--no-guides``).
    text : callable, optional
        ``text(flag, typed) -> value`` reads the typed text (lists, ``auto``, a file …);
        it may return a dict of several fields' values. ``ValueError`` names ``flag``.
        Default: by the field's type (``int``, ``float``, ``str``).
    sets : mapping or callable, optional
        Other fields' values that come with this option unless given themselves:
        ``{"overlay": True}`` or ``value -> {…}``.
    requires : Requires, optional
        When the option applies.
    choices : tuple, optional
        Listed in ``--help`` (the model checks the value).
    show : callable, optional
        ``show(params) -> str``: the text that ``text`` reads back as the values it sets
        (the inverse of ``text``, for the command written into every figure,
        :mod:`ntkviz.recipe`). Default: the field's value written by its type (numbers,
        comma-separated lists, ``auto`` for None), used when ``text`` reads it back.
    """

    flag: str
    help: str = ""
    metavar: str | None = None
    value: object = TAKES_VALUE
    text: Callable | None = None
    sets: Mapping | Callable | None = None
    requires: Requires | None = None
    choices: tuple = ()
    show: Callable | None = None

    @property
    def takes_value(self) -> bool:
        return self.value is TAKES_VALUE

    def extra(self, value) -> dict:
        """The other fields' values given with ``value``."""
        if self.sets is None:
            return {}
        return dict(self.sets(value) if callable(self.sets) else self.sets)


@dataclass(frozen=True)
class View:
    """One exportable view of a panel (the view's ``plot_items()`` has the same name).

    ``shows``: display-only fields an export of this view sets (e.g. the near-one plot
    of the kernel panel is shown); ``needs``: field values without which the view does
    not exist (e.g. the second run's plots need ``compare``); ``size``: the image size
    (width, height) in pixels an export has unless told otherwise (default
    :data:`ntkviz.limits.EXPORT_SIZE`)."""

    name: str
    help: str = ""
    shows: Mapping = field(default_factory=dict)
    needs: Mapping = field(default_factory=dict)
    size: tuple[int, int] | None = None

    def available(self, params) -> bool:
        return all(getattr(params, k) == v for k, v in self.needs.items())

    def export_size(self, width: int | None = None, height: int | None = None) -> tuple[int, int]:
        """``(width, height)`` in pixels of an export asked for at ``width`` × ``height``:
        both given, as given; one given, the other from the declared size's aspect ratio;
        none, the declared size."""
        from ntkviz.limits import EXPORT_SIZE

        w0, h0 = self.size or EXPORT_SIZE
        if width is None and height is None:
            return w0, h0
        if height is None:
            return int(width), max(1, round(int(width) * h0 / w0))
        if width is None:
            return max(1, round(int(height) * w0 / h0)), int(height)
        return int(width), int(height)


def option(default, flag: str, help: str = "", **kwargs):
    """A dataclass field with ``default`` that ``ntkviz export`` sets with ``flag`` (the
    other arguments are those of :class:`Option`)."""
    return dataclasses.field(default=default, metadata={"option": Option(flag, help, **kwargs)})


def options_of(params_cls) -> dict[str, Option]:
    """``{field: Option}`` of a ``Params`` class, in field order: the fields declared with
    :func:`option`, and those its ``OPTIONS`` class attribute lists."""
    declared = dict(getattr(params_cls, "OPTIONS", {}))
    out = {}
    for f in dataclasses.fields(params_cls):
        opt = f.metadata.get("option") or declared.pop(f.name, None)
        if opt is not None:
            out[f.name] = opt
    if declared:
        raise TypeError(f"{params_cls.__name__}.OPTIONS names no field: {', '.join(declared)}")
    return out
