"""The declared panels (``ntkviz.panels``): standard library only, one spec per tab, the
models import without Qt, and a panel can be added for a while (``registered``)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ntkviz import panels


def test_panels_and_every_model_import_without_qt():
    code = ("import sys\n"
            "import ntkviz.panels as p\n"
            "heavy = ('PySide6', 'pyqtgraph', 'numba', 'scipy', 'numpy')\n"
            "assert not [m for m in sys.modules if m.split('.')[0] in heavy], 'panels'\n"
            "models = [p.model_class(k) for k in p.keys()]\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in heavy[:3]]\n"
            "assert not bad, bad\n"
            "print(len(models))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(len(panels.PANELS))


def test_every_tab_is_declared_once_with_its_model():
    from ntkviz.models import ParamModel

    assert panels.keys() == ["kernel", "spectrum", "deformation", "stability", "training",
                             "classification", "learning", "scattering"]
    names = [n for s in panels.specs() for n in s.names]
    assert len(names) == len(set(names))
    for spec in panels.specs():
        model = panels.model_class(spec.key)
        assert issubclass(model, ParamModel) and model.views, spec.key
        assert panels.spec(spec.key) is spec


def test_earlier_names_find_their_panel_and_unknown_names_are_refused():
    assert panels.spec("deform").key == "deformation"
    with pytest.raises(ValueError, match="panel must be one of kernel, spectrum"):
        panels.spec("defrom")


def test_registered_extends_the_panels_for_a_while_only():
    extra = panels.PanelSpec("extra", "Extra", "ntkviz.models.spectrum:SpectrumModel",
                             "ntkviz.gui.panels.spectrum:QtSpectrumPanel")
    with panels.registered(extra):
        assert panels.keys()[-1] == "extra" and panels.spec("extra") is extra
        with pytest.raises(ValueError, match="taken"):
            with panels.registered(panels.PanelSpec("x", "X", "m:M", "v:V", aliases=("deform",))):
                pass
    assert "extra" not in panels.keys()


def test_resolve_names_and_classes():
    from ntkviz.models.stability import StabilityModel

    assert panels.resolve("ntkviz.models.stability:StabilityModel") is StabilityModel
    assert panels.resolve(StabilityModel) is StabilityModel
    with pytest.raises(ValueError, match="package.module:Name"):
        panels.resolve("ntkviz.models.stability")
