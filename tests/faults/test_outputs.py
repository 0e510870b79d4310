"""Valid but extreme requests: they finish with exit 0 and write only finite numbers, or
are refused with one line; never a crash, NaN or inf."""
from __future__ import annotations

import numpy as np
import pytest

from faultlib import assert_finite_csv, csv_numbers, error_line, run_cli

#: (case id, argv, output suffix); the deformation context may hold inf (a relative distance
#: from a zero image is infinite, as documented) but never NaN
EXTREME = [
    ("spectrum bias 1e-17", "spectrum --name ntk --depth 3 --bias 1e-17 --dim 5 --kmax 10", ".csv"),
    ("spectrum bias 5e-324", "spectrum --name ntk --depth 3 --bias 5e-324 --dim 5 --kmax 10", ".csv"),
    ("spectrum p 1000 kmax 2000", "spectrum --name arccos1 --dim 1000 --kmax 2000", ".csv"),
    ("export spectrum p 1000 kmax 2000", "export spectrum --kernels arccos1 --dim 1000 --kmax 2000", ".csv"),
    ("export kernel step NTK depth 50 near one",
     "export kernel --kernels ntk --activation step --depth 50 --view near_one", ".csv"),
    ("export deform zero image context", "export deform --image {F[zero.npy]} --view context", ".csv"),
    ("export deform 1x1 image context", "export deform --image {F[one_pixel.npy]} --view context", ".csv"),
    ("export stability one digit one reference",
     "export stability --digits 0 --references 1 --amplitudes 0.5,1,2", ".csv"),
    ("gram images times 1e300", "gram --model M3 --mode ntk --images {F[huge.npy]}", ".npy"),
    ("stability NTK columns of an exp architecture",
     "stability --model M4 --digits 1 --amplitudes 0.1,0.2 --references 1", ".csv"),
    ("kernel bias at the top of the range", "kernel --name nngp --depth 50 --bias 100 --grid 11", ".csv"),
]


@pytest.mark.parametrize("case", EXTREME, ids=[c[0] for c in EXTREME])
def test_finite_or_refused(case, tmp_path, files, capsys):
    name, template, suffix = case
    out = tmp_path / f"out{suffix}"
    argv = template.format(F=files).split() + ["--out", str(out)]
    code, _, err = run_cli(argv, capsys)
    assert "Traceback" not in err
    if code == 2:
        error_line(err)
        assert not out.exists()
        return
    assert code == 0, err[-300:]
    if "context" in name:
        values = csv_numbers(out)
        assert values.size and not np.any(np.isnan(values)), "NaN in the context distances"
    elif suffix == ".csv":
        assert_finite_csv(out)
    else:
        values = np.load(out)
        assert values.size and np.all(np.isfinite(values)), "NaN/inf in the Gram matrix"


def test_spectrum_multiplicities_are_numbers(tmp_path, capsys):
    """At p = 1000 the multiplicity N(p, k) exceeds float64 from k ≈ 308: the CSV must still
    hold a number (or the log10 column) rather than inf."""
    out = tmp_path / "mu.csv"
    assert run_cli(["spectrum", "--name", "arccos0", "--dim", "1000", "--kmax", "400", "--out", out],
                   capsys)[0] == 0
    assert np.all(np.isfinite(csv_numbers(out)))


@pytest.mark.parametrize("name,depth,bias", [("arccos1", 2, 0.0), ("ntk", 50, 1.0)])
def test_no_trusted_false_zero(name, depth, bias):
    """At p = 1000 the eigenvalues fall below the float64 range; a 0.0 (or subnormal)
    that is not an exact zero must not be flagged trustworthy."""
    from ntkviz.core.kernels.dotkernel import KernelSpec
    from ntkviz.jobs import SpectrumTableRequest

    sp = SpectrumTableRequest(KernelSpec(name, depth, bias), 1000, 400)().spectrum
    tiny = (np.abs(sp.mu) < np.finfo(np.float64).tiny) & ~sp.exact_zero
    assert not np.any(tiny & sp.trustworthy), f"{int(np.sum(tiny & sp.trustworthy))} false zeros trusted"


def test_no_negative_eigenvalue_beyond_its_estimate(tmp_path, capsys):
    """Tanh NTK L = 50, β = 0.1, p = 5 gave μ_k < 0 beyond the error estimate (e.g.
    k = 635: −1.09e-17 with estimate 1.01e-17). Eigenvalues of a positive definite kernel are
    >= 0: a negative value must lie within its estimate and not be called trustworthy."""
    out = tmp_path / "mu.csv"
    argv = ["spectrum", "--name", "ntk", "--activation", "tanh", "--depth", "50", "--bias", "0.1",
            "--dim", "5", "--kmax", "700", "--out", out]
    assert run_cli(argv, capsys)[0] == 0
    import csv

    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    for k, _, mu, err, _, trusted, log_trusted, _ in rows:
        if float(mu) < 0:
            assert -float(mu) <= float(err), f"k = {k}: mu = {mu} beyond its estimate {err}"
            assert trusted == "False", f"k = {k}: negative mu = {mu} called trustworthy"
            assert log_trusted == "False", f"k = {k}: log10 of negative mu = {mu} trusted"
