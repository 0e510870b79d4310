"""The command written into every figure (ntkviz.recipe): generated from the models'
option declarations for every declared panel, quoted for a shell, and read back through
the real command-line parser to the same parameters."""
from __future__ import annotations

import dataclasses
import json
import random
import shlex
from dataclasses import dataclass

import pytest

from ntkviz import panels
from ntkviz.models import ParamModel, View, option
from ntkviz.panels import PanelSpec, registered
from ntkviz.recipe import command_for, parse_command, recipe_for


def _cases():
    """(panel key, gallery case, state) of every declared panel."""
    for spec in panels.specs():
        model = panels.model_class(spec.key)
        for name, state in model.gallery_cases().items():
            yield pytest.param(spec.key, state, id=f"{spec.key}-{name}")


def _drawn(model, params, view):
    """``params`` as an export of ``view`` draws them (the view's display fields, the
    display-only fields every export sets) — written here from the model's declarations."""
    declared = next(v for v in model.views if v.name == view)
    fixed = {f: v for f, v in model.export_state.items() if f in model.display_only}
    fixed.update(declared.shows)
    return dataclasses.replace(params, **fixed)


@pytest.mark.parametrize("key, state", list(_cases()))
def test_every_view_of_every_gallery_case_reads_back_to_its_parameters(key, state):
    model = panels.model_class(key)
    params = model.parse(state)
    for view in model.views:
        if not view.available(params):
            continue
        command = command_for(key, params, view.name, "fig one.png", 640, 400, 150)
        back = parse_command(command)
        assert back.params == _drawn(model, params, view.name), command
        assert (back.panel, back.view, back.out) == (key, view.name, "fig one.png")
        assert (back.width, back.height, back.dpi) == (640, 400, 150)
        assert shlex.split(command)[:3] == ["ntkviz", "export", key]


def _mutations(model, rng):
    """Random valid parameter sets: gallery cases merged two by two, in random order."""
    cases = list(model.gallery_cases().values())
    for _ in range(6):
        a, b = rng.sample(cases, 2) if len(cases) > 1 else (cases[0], {})
        for state in ({**a, **b}, {**b, **a}):
            try:
                yield model.parse(state)
            except ValueError:
                continue


@pytest.mark.parametrize("key", panels.keys())
def test_merged_cases_read_back_too(key):
    model = panels.model_class(key)
    rng = random.Random(21)
    checked = 0
    for params in _mutations(model, rng):
        view = rng.choice([v.name for v in model.views if v.available(params)])
        assert parse_command(command_for(key, params, view, "x.svg")).params == \
            _drawn(model, params, view)
        checked += 1
    assert checked >= 3


def test_options_say_what_they_can_and_params_only_the_rest():
    """A kernel figure needs no --params (every field has an option); a custom deformation
    architecture writes only its layers in --params; the values are the options' text."""
    cmd = command_for("kernel", {"kernels": ["ntk", "nngp"], "depth": 4, "bias": 0.3,
                                 "extra_depths": [6, 9]}, "curves", "k.png")
    assert cmd == ("ntkviz export kernel --kernels ntk,nngp --depth 4 --depths 6,9 --bias 0.3 "
                   "--view curves --out k.png")
    layers = [[2, 2, "gaussian", "relu", 1.0, None], [4, 3, "average", "relu", 1.0, None]]
    cmd = command_for("deformation", {"preset": "custom", "layers": layers, "label": 9},
                      "deformed", "d.png")
    words = shlex.split(cmd)
    assert json.loads(words[words.index("--params") + 1]) == {"layers": layers}
    assert words[words.index("--arch") + 1] == "custom"


@pytest.mark.parametrize("key, state, words", [
    ("deformation", {"translate_x": -2.5}, ["--translate-x=-2.5"]),  # looks like an option
    ("learning", {"target": "1:1, 3:2"}, ["--target", "1:1, 3:2"]),  # a space: one shell word
])
def test_quoting(key, state, words):
    model = panels.model_class(key)
    view = model.views[0].name
    cmd = command_for(key, state, view, "it's here.png")
    split = shlex.split(cmd)
    assert split[split.index("--view") - len(words):split.index("--view")] == words
    assert split[split.index("--out") + 1] == "it's here.png"
    assert parse_command(cmd).params == _drawn(model, model.parse(state), view)


def test_a_user_image_and_a_quoted_name_go_through_params():
    pixels = [[(i * 28 + j) / 783 for j in range(28)] for i in range(28)]
    state = {"user_pixels": pixels, "user_name": "my \"digit\" 'x'.png", "rotation_deg": -5.0}
    cmd = command_for("deformation", state, "deformed", "d.png")
    assert "--rotation=-5" in cmd
    back = parse_command(cmd).params
    assert back.user_pixels == tuple(tuple(r) for r in pixels)
    assert back.user_name == state["user_name"]


def test_implied_values_are_not_repeated():
    """--compare-alpha implies the second run (compare): the command says it once."""
    cmd = command_for("training", {"alpha2": 50.0, "steps": 300}, "figure", "t.png")
    assert "--compare-alpha 50" in cmd and "--params" not in cmd
    cmd = command_for("stability", {"family": "rotation", "amplitude_min": 0.5,
                                    "amplitude_max": 20.0, "amplitude_count": 3},
                      "stability", "s.png")
    assert "--amplitudes 0.5,20.0,3" in cmd and "--params" not in cmd


def test_recipe_holds_version_tab_view_and_parameters():
    from ntkviz import __version__

    r = recipe_for("spectrum", {"dim": 7}, "slope", "s.pdf", 640, 400)
    assert (r.version, r.tab, r.title, r.view) == (__version__, "spectrum", "Eigenvalue decay",
                                                  "slope")
    assert r.params["dim"] == 7 and r.params["slope"] is True  # the view's display field
    items = r.text_items()
    assert json.loads(items["ntkviz-params"]) == r.params
    assert items["ntkviz-command"] == r.command and r.command.endswith("--width 640 --height 400")


def test_not_an_export_command_is_refused():
    for text in ("ntkviz kernel --out x.csv", "rm -rf /", "ntkviz export nope --out x.png",
                 "ntkviz export kernel --depth 999 --out x.csv", "ntkviz export kernel 'open"):
        with pytest.raises(ValueError):
            parse_command(text)


# ------------------------------------------------- a panel declared here gets it too
@dataclass(frozen=True)
class _Params:
    a: float = option(1.0, "--a", "a in [0, 10]")
    hidden: int = 3  # no option: only --params can say it

    def __post_init__(self):
        if not 0 <= self.a <= 10 or not 0 <= self.hidden <= 9:
            raise ValueError(f"a must be in [0, 10], got {self.a}")


class _Model(ParamModel):
    Params = _Params
    views = (View("only"),)


def test_a_new_panel_needs_no_code_of_its_own():
    with registered(PanelSpec("recipetest", "Recipe test", _Model, "no.module:View")):
        cmd = command_for("recipetest", _Params(a=2.5, hidden=7), "only", "r.png")
        assert cmd == ("ntkviz export recipetest --a 2.5 --params '{\"hidden\":7}' --view only "
                       "--out r.png")
        assert parse_command(cmd).params == _Params(a=2.5, hidden=7)
