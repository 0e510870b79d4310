"""The table requests behind ``ntkviz kernel`` / ``ntkviz spectrum``: validation on
construction, read-only inputs, values equal to the core's."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ntkviz.core import KernelSpec, evaluate_kernel
from ntkviz.jobs import KernelTableRequest, SpectrumTableRequest


@pytest.mark.parametrize("make,match", [
    (lambda: KernelTableRequest(KernelSpec("ntk"), []), "at least one"),
    (lambda: KernelTableRequest("ntk", [0.0]), "KernelSpec"),
    (lambda: KernelTableRequest(KernelSpec("ntk"), [1.5]), r"\[-1, 1\]"),
    (lambda: KernelTableRequest(KernelSpec("ntk", 99), [0.0]), "depth"),
    (lambda: KernelTableRequest.grid(KernelSpec("ntk"), 1), "grid"),
    (lambda: SpectrumTableRequest(KernelSpec("ntk"), 1, 5), "dim"),
    (lambda: SpectrumTableRequest(KernelSpec("ntk"), 3, 2001), "kmax"),
])
def test_refused_on_construction(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_kernel_table_values_and_frozen_inputs():
    u = np.array([-1.0, 0.25, 1.0 + 5e-13])  # rounding above 1 counts as 1
    request = KernelTableRequest(KernelSpec("ntk", 3), u)
    assert request.u[-1] == 1.0 and not request.u.flags.writeable
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.u = u
    header, rows = request().csv_table()
    value, deriv = evaluate_kernel(KernelSpec("ntk", 3), [-1.0, 0.25, 1.0])
    assert header == ["u", "value", "derivative"]
    np.testing.assert_array_equal(np.array(rows)[:, 1], value)
    np.testing.assert_array_equal(np.array(rows)[:, 2], deriv)


def test_spectrum_table_sums_to_kappa_one():
    """Σ_k N(p, k) μ_k = κ(1) (Mercer at u = 1); κ1 on S² converges fast enough at kmax = 400."""
    header, rows = SpectrumTableRequest(KernelSpec("arccos1"), 3, 400)().csv_table()
    assert header[:4] == ["k", "multiplicity", "mu", "error_estimate"]
    total = sum(int(r[1]) * float(r[2]) for r in rows)
    assert total == pytest.approx(1.0, abs=1e-6)
