"""The curated public API of ntkviz.jobs: the requests and responses a user needs, documented,
lazily loaded; everything else is reached from its module."""
from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import ntkviz.jobs as jobs


def test_every_public_name_resolves_and_is_documented():
    # the requests and responses of each concept (eight tabs and the dataset commands), the
    # protocol and three editor tables
    assert len(jobs.__all__) == len(set(jobs.__all__)) <= 48
    for name in jobs.__all__:
        value = getattr(jobs, name)
        assert value is getattr(__import__(f"ntkviz.jobs.{jobs._API[name]}", fromlist=[name]), name)
        if inspect.isfunction(value) or inspect.isclass(value):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"
        assert f"``{name}``" in jobs.__doc__, f"{name} is not described in the package docstring"
    for name in jobs.__all__:
        if name.endswith("Request"):  # every request's response is public too
            assert inspect.isclass(getattr(jobs, name))


def test_no_core_names_and_no_test_helpers():
    """The face holds no re-export of the core (those live in ``ntkviz.core``) and no helper
    that only the tests use: such names resolve from their module only."""
    import ntkviz.core as core

    assert not set(jobs.__all__) & set(core.__all__)
    for name in ("DIGIT_SIZE", "prepare_user_image", "local_slopes", "parse_depths",
                 "specs_from_choice", "LEARNING_LIMITS", "NTK_RESOLUTION"):
        with pytest.raises(AttributeError):
            getattr(jobs, name)
    from ntkviz.jobs._curves import local_slopes

    assert callable(local_slopes)


def test_import_is_lazy_and_cheap():
    code = ("import sys, ntkviz.jobs as j; "
            "assert not [m for m in sys.modules if m.startswith('ntkviz.jobs.')], 'a job module'; "
            "assert 'numpy' not in sys.modules and 'numba' not in sys.modules; "
            "j.TrainRequest; assert 'ntkviz.jobs._curves' not in sys.modules; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip() == "ok", proc.stderr[-300:]
