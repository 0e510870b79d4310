"""ParamModel: validation in one place, events, strict session parsing."""
from __future__ import annotations

import dataclasses

import pytest

from ntkviz.models import ParamModel, parse_params


@dataclasses.dataclass(frozen=True)
class _Params:
    depth: int = 2
    bias: float = 0.0
    kernels: tuple[str, ...] = ("ntk",)
    guides: bool = True
    seed: int | None = None

    def __post_init__(self):
        if not 2 <= self.depth <= 50:
            raise ValueError(f"depth must be in [2, 50], got {self.depth}")


class _Model(ParamModel):
    Params = _Params
    display_only = frozenset({"guides"})

    @classmethod
    def build_request(cls, params):
        return lambda: params.depth * 2


def test_update_notifies_changed_fields_and_recompute_flag():
    m = _Model()
    seen = []
    m.connect(lambda changed, recompute: seen.append((set(changed), recompute)))
    assert m.update(depth=3) == {"depth"}
    assert m.update(guides=False) == {"guides"}
    assert m.update(depth=3) == frozenset()  # no change, no event
    assert seen == [({"depth"}, True), ({"guides"}, False)]
    assert m.request()() == 6


def test_invalid_update_names_field_and_keeps_state():
    m = _Model()
    with pytest.raises(ValueError, match="depth must be in"):
        m.update(depth=99)
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        m.update(nope=1)
    assert m.params.depth == 2


@pytest.mark.parametrize("state, match", [
    ({"depth": True}, "depth must be an integer"),
    ({"depth": 2.5}, "depth must be an integer"),
    ({"depth": [1]}, "depth must be an integer"),
    ({"depth": 10 ** 400}, "depth must be in"),
    ({"bias": "x"}, "bias must be a number"),
    ({"kernels": "ntk"}, "kernels must be a list"),
    ({"kernels": [1]}, r"kernels\[0\] must be a string"),
    ({"guides": 1}, "guides must be true or false"),
    ({"extra": 1}, "unknown parameter 'extra'"),
])
def test_parse_refuses_wrong_types(state, match):
    with pytest.raises(ValueError, match=match):
        parse_params(_Params, state)


def test_restore_is_all_or_nothing_and_round_trips():
    m = _Model()
    with pytest.raises(ValueError):
        m.restore({"bias": 0.5, "depth": 0})
    assert m.params == _Params()
    m.restore({"bias": 0.5, "kernels": ["ntk", "nngp"], "seed": None})
    other = _Model()
    other.restore(m.to_session())
    assert other.params == m.params
    assert m.to_session()["kernels"] == ["ntk", "nngp"]
