"""Start-up imports: the first request is built on the GUI thread without importing the
numeric core (the start-up job on a worker did), and probing a lazy package for an
attribute it does not have (PySide6's import hook asks for ``__wrapped__``) imports
nothing."""
from __future__ import annotations

import subprocess
import sys

IMPORTED_BY_THE_START_UP_JOB = """
import sys
import PySide6.QtCore  # installs PySide6's import hook, as in the app
from ntkviz.gui.startup import import_core
from ntkviz.models.kernel_curves import KernelCurvesModel
from ntkviz.models.spectrum import SpectrumModel

for model in (KernelCurvesModel(), SpectrumModel()):
    import_core(model)
    before = set(sys.modules)
    model.request()
    new = sorted(set(sys.modules) - before)
    assert not new, (type(model).__name__, new)
print("ok")
"""

PROBE_IMPORTS_NOTHING = """
import sys
import PySide6.QtCore
import ntkviz.core
import ntkviz.jobs
before = set(sys.modules)
assert not hasattr(ntkviz.jobs, "__wrapped__") and not hasattr(ntkviz.core, "__wrapped__")
assert set(sys.modules) == before, sorted(set(sys.modules) - before)
from ntkviz.jobs import KernelCurveRequest
from ntkviz.core import KernelSpec
others = [m for m in sys.modules if m.startswith("ntkviz.jobs.") and m not in
          ("ntkviz.jobs._curves", "ntkviz.jobs._tables", "ntkviz.jobs._run")]
assert not others, others
# the kernel definitions only: no convolutional, deformation or training module
assert not [m for m in sys.modules if m.startswith(("ntkviz.core.conv", "ntkviz.core.deformations",
                                                   "ntkviz.core.training", "ntkviz.dataset"))]
print("ok")
"""


FIRST_PLOT_NEEDS_NO_SCIPY_SPECIAL = """
import sys
from ntkviz.models.kernel_curves import KernelCurvesModel
from ntkviz.models.spectrum import SpectrumModel

for model in (KernelCurvesModel(), SpectrumModel()):  # the default ReLU kernels
    model.request()()
assert "scipy.special" not in sys.modules  # ~0.1 s: only the activation kernels need it
from ntkviz.core import KernelSpec, evaluate_kernel
evaluate_kernel(KernelSpec("ntk", 3, 0.0, "gelu"), [0.5])  # and they load it themselves
assert "scipy.special" in sys.modules
print("ok")
"""


def _run(code: str) -> None:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_first_request_imports_nothing_after_the_start_up_job():
    _run(IMPORTED_BY_THE_START_UP_JOB)


def test_probing_the_lazy_packages_imports_nothing():
    _run(PROBE_IMPORTS_NOTHING)


def test_the_first_plots_do_not_import_scipy_special():
    _run(FIRST_PLOT_NEEDS_NO_SCIPY_SPECIAL)


def test_start_up_job_survives_invalid_parameters():
    from ntkviz.gui.startup import import_core
    from ntkviz.models.spectrum import SpectrumModel

    class Broken(SpectrumModel):
        @classmethod
        def build_request(cls, params):
            raise ValueError("dim: must be in [2, 1000], got 1")

    assert import_core(Broken()) == "core loaded"
    assert import_core() == "core loaded"
