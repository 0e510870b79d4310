"""The curated public API of ntkviz.core (thin, documented, lazily loaded)."""
from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import ntkviz.core as core


def test_every_public_name_resolves_and_is_documented():
    # a curated face: one short entry per concept (kernels, spectra, conv, deformations, maps and
    # scattering, training, learning), not every helper of the modules
    assert len(core.__all__) == len(set(core.__all__)) <= 70
    for name in core.__all__:
        value = getattr(core, name)
        assert value is getattr(__import__(f"ntkviz.core.{core._API[name]}",
                                           fromlist=[name]), name)
        if inspect.isfunction(value) or inspect.isclass(value):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"
        assert name in core.__doc__, f"{name} is not described in the package docstring"


def test_only_the_curated_names_resolve():
    """No fallback: a helper is reached from its module, never as ``ntkviz.core.<name>``."""
    assert "pooling_matrix" not in core.__all__ and "check_int" not in core.__all__
    for name in ("pooling_matrix", "check_int", "validated_architecture", "MAX_DIM"):
        with pytest.raises(AttributeError):
            getattr(core, name)
    from ntkviz.core.conv.architecture import pooling_matrix

    assert callable(pooling_matrix)
    assert set(dir(core)) >= set(core.__all__)


def test_import_is_lazy():
    code = ("import sys, ntkviz.core as c; assert 'numba' not in sys.modules; "
            "c.TrainConfig, c.METRICS, c.frame_steps, c.validate_image; "
            "assert 'numba' not in sys.modules, 'the light names loaded numba'; "
            "c.kappa1; assert 'ntkviz.core.conv' not in sys.modules; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip() == "ok", proc.stderr[-300:]
