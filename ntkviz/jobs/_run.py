"""The one way a long job is run to its end outside the GUI's dispatcher."""
from __future__ import annotations

from typing import Callable, Iterator

__all__ = ["run_to_end"]


def run_to_end(items: Iterator, on_item: Callable[[object], None] | None = None):
    """Exhaust the generator ``items`` (a request's ``iterate()``), calling ``on_item``
    on each item, and return its return value — or, when it returns ``None``, its last
    item (the rule the GUI's dispatcher follows too)."""
    last = None
    while True:
        try:
            last = next(items)
        except StopIteration as stop:
            return last if stop.value is None else stop.value
        if on_item is not None:
            on_item(last)
