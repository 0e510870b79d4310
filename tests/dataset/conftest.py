"""Dask's LocalCluster sets OMP/MKL/OPENBLAS_NUM_THREADS and PYTHONHASHSEED in the
parent process's environment; restore it after each test so later tests (and the
processes they start) see the environment the suite started with."""
import os

import pytest


@pytest.fixture(autouse=True)
def _restore_environment():
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)
