"""Every figure carries its recipe, for every declared panel: the command embedded in the
PNG of a non-default figure of each tab, run with ``--out x.csv``, writes the same CSV as
the tab exports from its own state (byte for byte)."""
from __future__ import annotations

import shlex

import pytest

from ntkviz import panels

#: a cheap non-default figure of each panel of today (state, view); a panel added later
#: is taken from its model's gallery cases (:func:`_figure`)
FIGURES = {
    "kernel": ({"kernels": ["ntk", "nngp"], "depth": 4, "bias": 0.3, "extra_depths": [6]},
               "near_one"),
    "spectrum": ({"kernels": ["ntk", "arccos1"], "dim": 7, "kmax": 60, "weighted": True},
                 "slope"),
    "deformation": ({"label": 4, "rotation_deg": 12.5, "smooth_amplitude": 0.7},
                    "difference"),
    "stability": ({"digits": [0, 100], "family": "rotation", "amplitude_min": 0.5,
                   "amplitude_max": 20.0, "amplitude_count": 3, "reference_per_class": 2},
                  "stability"),
    "training": ({"alpha": 0.1, "steps": 300, "frames": 12, "alpha2": 50.0, "frame": 5},
                 "predictor_2"),
    "classification": ({"kernels": ["pixels"], "train_sizes": [10, 20], "test_size": 10,
                        "ridge": 0.01, "amplitudes": [0.0, 10.0]}, "deformation"),
    "learning": ({"dim": 5, "target": "1:1,3:0.5", "ridge": 0.01, "n": 150, "kmax": 100,
                  "view": "gp"}, "learnability"),
}


def _figure(key: str) -> tuple[dict, str]:
    """(state, view) of a non-default figure of panel ``key``: from :data:`FIGURES`, else the
    first gallery case of its model whose parameters are not the defaults, with its last
    view that exists for them."""
    if key in FIGURES:
        return FIGURES[key]
    model = panels.model_class(key)
    for state in model.gallery_cases().values():
        params = model.parse(state)
        if params != model.Params():
            return state, model.view_names(params)[-1]
    raise AssertionError(f"panel {key!r}: give its model a gallery case with other parameters "
                         "than the defaults")


@pytest.mark.parametrize("key", panels.keys())
def test_the_command_in_the_png_writes_the_tabs_csv(key, tmp_path, monkeypatch):
    from PIL import Image

    from ntkviz.cli import main
    from ntkviz.gui.export import export_view
    from ntkviz.gui.headless import build_panel

    state, view = _figure(key)
    panel = build_panel(panels.view_class(key), state, timeout_s=600)
    try:
        assert panel.model.params != panel.model.Params()  # a non-default figure
        png = export_view(panel, view, tmp_path / "figure.png", 640, 400)
        gui_csv = export_view(panel, view, tmp_path / "gui.csv")
    finally:
        panel.dispatcher.shutdown()
        panel.close()
    with Image.open(png) as im:  # read by Pillow, not by ntkviz
        command = im.text["ntkviz-command"]
    words = shlex.split(command)
    assert words[:3] == ["ntkviz", "export", key] and words[words.index("--view") + 1] == view
    words[words.index("--out") + 1] = "x.csv"
    monkeypatch.chdir(tmp_path)
    assert main(words[1:]) == 0
    assert (tmp_path / "x.csv").read_bytes() == gui_csv.read_bytes()
    assert b"\r\n" not in gui_csv.read_bytes()  # LF line ends
