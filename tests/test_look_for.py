"""Help → What to look for: every declared panel has two to five observations, each with
parameters its model accepts, written in Unicode maths (no TeX). A panel added to
``ntkviz.panels.PANELS`` without observations fails here, named."""
from __future__ import annotations

import re

import pytest

from ntkviz import panels
from ntkviz.look_for import LOOK_FOR, RAW_MATHS, Observation, observations



def test_every_panel_has_what_to_look_for():
    missing = [s.key for s in panels.specs() if s.key not in LOOK_FOR]
    assert not missing, ("panels without a 'What to look for' (add two to five observations to "
                         f"ntkviz/look_for.py, LOOK_FOR): {', '.join(missing)}")
    unknown = sorted(set(LOOK_FOR) - set(panels.keys()))
    assert not unknown, f"LOOK_FOR names no declared panel: {unknown}"


@pytest.mark.parametrize("key", sorted(LOOK_FOR))
def test_observations_are_few_valid_and_in_unicode(key):
    found = observations(key)
    assert 2 <= len(found) <= 5, f"{key}: {len(found)} observations (two to five)"
    model = panels.model_class(key)
    for obs in found:
        assert isinstance(obs, Observation) and len(obs.text) > 40
        model.parse(dict(obs.params))  # the parameters that show it are valid ones
        assert not RAW_MATHS.search(obs.text), f"{key}: raw maths in {obs.text!r}"
        assert re.search(r"\d", obs.text + obs.params_text()), \
            f"{key}: an observation names the values that show it: {obs.text!r}"


def test_unknown_panel_names_where_to_add_it():
    with pytest.raises(KeyError, match="ntkviz/look_for.py"):
        observations("nope")


def test_parameters_read_as_short_text():
    assert Observation("x" * 50).params_text() == "the defaults"
    obs = Observation("x" * 50, {"kernels": ["ntk", "nngp"], "normalize": True, "ridge": 1e6})
    assert obs.params_text() == "kernels ntk,nngp, normalize on, ridge 1e+06"
    with pytest.raises(TypeError):
        obs.params["ridge"] = 0  # read-only


@pytest.mark.parametrize("text", ["S^{p−1}", "Θ_{L−1}", "μ_k", "\\alpha", "k^2", "$x$", "c_0",
                                  "NTK_L(1) = L"])
def test_the_raw_maths_pattern_catches(text):
    assert RAW_MATHS.search(text)


@pytest.mark.parametrize("text", ["Sᵖ⁻¹ ⊂ ℝᵖ", "μₖ ~ C(p) k⁻ᵖ", "train_loss", "Hölder-½",
                                  "albietz/ckn_kernel", "‖L_τx − x‖",
                                  "NTK_PARAMS", "κ(1) = L"])
def test_the_raw_maths_pattern_spares(text):
    assert not RAW_MATHS.search(text)
