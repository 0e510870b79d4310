"""Text helpers shared by every layer. Standard library only (no Qt, no numerics), so the
command line, the dataset layer, the models and the views can all use it.

Lists typed by a user -- command-line options, text fields of the app, lists in a
session -- are read by one parser under one rule, with one message for each way to break
it. The rule: values are separated by commas (spaces around them are ignored); an empty
entry (``"3,,5"``, ``"3,"``, ``","``) is refused, as is a value given twice (``"50,50"``,
``"ntk,ntk"``; for numbers, equal values: ``"1,1.0"``), and every entry must be of the
kind asked (an integer, a finite number, or one of the allowed names). Ranges are the
caller's to check. A list that arrives already split (a JSON list of a session) is held to
the same rule by :func:`check_distinct`.

Also here: :func:`json_int`, the integer reader of session files (a number with more
digits than Python converts to ``int`` still reaches the field's own range check, which
names the field), and :func:`superscript` (exponents written as Unicode superscripts for
axis ticks and legends).
"""
from __future__ import annotations

import math
import sys
from typing import Iterable, Sequence

__all__ = ["parse_list", "check_distinct", "json_int", "superscript"]

_KIND_WORDS = {int: "integers", float: "numbers", str: "names"}
_SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")


def superscript(text) -> str:
    """The digits and signs of ``text`` as Unicode superscripts (``-39`` -> ``⁻³⁹``)."""
    return str(text).translate(_SUPERSCRIPT)


def parse_list(name: str, text, kind: type = int, choices: Sequence[str] | None = None,
               allow_blank: bool = True) -> tuple:
    """``"3, 5"`` -> ``(3, 5)``: the comma-separated values of ``text`` as ``kind`` (``int``,
    ``float`` or ``str``; ``choices`` restricts names), under the rule of the module
    docstring. Blank text gives ``()`` unless ``allow_blank`` is False.

    ``ValueError`` messages (``<name>`` is the option or field):

    * ``<name> must be integers|numbers|names separated by commas, got '<text>' (an entry is
      empty: use single commas)``;
    * ``<name> must be integers|numbers separated by commas, got '<text>'`` -- an entry that is
      not of the kind (a non-finite number included);
    * ``<name> must be among a, b, c, got '<entry>'`` -- a name outside ``choices``;
    * ``<name> must not repeat a value, got <v> twice`` -- a repeated value;
    * ``<name> needs at least one value`` -- blank text with ``allow_blank=False``.
    """
    text = str(text)
    if not text.strip():
        if allow_blank:
            return ()
        raise ValueError(f"{name} needs at least one value")
    values = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            raise ValueError(f"{name} must be {_KIND_WORDS[kind]} separated by commas, got {text!r} (an entry "
                             "is empty: use single commas)")
        value = _entry(token, kind)
        if value is None:
            raise ValueError(f"{name} must be {_KIND_WORDS[kind]} separated by commas, got {text!r}")
        if choices is not None and value not in choices:
            raise ValueError(f"{name} must be among {', '.join(choices)}, got {value!r}")
        values.append(value)
    check_distinct(name, values, "name" if kind is str else "value")
    return tuple(values)


def _entry(token: str, kind: type):
    if kind is str:
        return token
    try:
        value = kind(token)
    except ValueError:
        return None
    return value if kind is int or math.isfinite(value) else None


def check_distinct(name: str, values: Iterable, what: str = "value") -> None:
    """``ValueError("<name> must not repeat a <what>, got <v> twice")`` if a value of
    ``values`` occurs twice (numbers compare by value: 1 and 1.0 are the same)."""
    seen = set()
    for v in values:
        if v in seen:
            raise ValueError(f"{name} must not repeat a {what}, got {v!r} twice")
        seen.add(v)


def json_int(token: str) -> int:
    """The ``parse_int`` of :func:`json.loads` for session files: ``int(token)``, and for a
    token longer than Python converts (``sys.get_int_max_str_digits()``, 4300 digits by
    default) an integer of the same sign with one digit more than that limit. No field
    accepts an integer that long, so the field's own check refuses it and names the field
    (instead of ``json`` failing on the whole file); converting it exactly would take
    seconds for a million digits."""
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    digits = len(token.lstrip("-"))
    if not limit or digits <= limit:
        return int(token)
    return (-1 if token.startswith("-") else 1) * 10 ** limit
