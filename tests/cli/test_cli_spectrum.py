"""``ntkviz spectrum``: CSV columns and values, --help, one-line errors with exit code 2."""
from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from ntkviz.cli import main


def read_csv(path):
    """(header, the numeric columns k, multiplicity, mu, error_estimate as floats)."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][4:] == ["log10_mu", "trustworthy", "log10_trustworthy", "log10_multiplicity"], rows[0]
    return rows[0][:4], np.array([r[:4] for r in rows[1:]], dtype=np.float64)


def test_spectrum_csv_matches_reference_values(tmp_path, data_dir):
    out = tmp_path / "mu.csv"
    assert main(["spectrum", "--name", "ntk", "--depth", "3", "--dim", "5", "--kmax", "60",
                 "--out", str(out)]) == 0
    header, table = read_csv(out)
    assert header == ["k", "multiplicity", "mu", "error_estimate"]
    reference = json.loads((data_dir / "kernels_oracle.json").read_text())["mercer"]["p5"]  # mpmath values
    expected = np.array([float(v) for v in reference["ntk_L3_str"]])
    np.testing.assert_array_equal(table[:, 0], np.arange(61))
    np.testing.assert_allclose(table[:, 2], expected, rtol=1e-12)
    assert np.all(np.abs(table[:, 2] - expected) <= table[:, 3])
    assert table[47, 1] == (2 * 47 + 3) * (47 + 1) * (47 + 2) // 6  # N(5, k) = (2k+3)(k+1)(k+2)/6


def test_spectrum_closed_form_zeros_and_normalize(tmp_path):
    out = tmp_path / "k0.csv"
    assert main(["spectrum", "--name", "arccos0", "--dim", "3", "--kmax", "7",
                 "--out", str(out)]) == 0
    _, table = read_csv(out)
    np.testing.assert_array_equal(table[:, 1], 2 * np.arange(8) + 1)
    np.testing.assert_allclose(table[:, 2], [1 / 2, 1 / 8, 0, 1 / 128, 0, 1 / 512, 0, 25 / 32768],
                               rtol=1e-14)
    assert table[2, 2] == 0.0 and table[2, 3] == 0.0
    out2 = tmp_path / "ntk.csv"
    assert main(["spectrum", "--name", "ntk", "--normalize", "--dim", "3", "--kmax", "2",
                 "--out", str(out2)]) == 0
    np.testing.assert_allclose(read_csv(out2)[1][:, 2], [1 / 4, 1 / 6, 5 / 128], rtol=1e-14)


def test_spectrum_activation(tmp_path):
    out = tmp_path / "tanh.csv"
    assert main(["spectrum", "--name", "nngp", "--activation", "tanh", "--bias", "0.1",
                 "--depth", "3", "--dim", "4", "--kmax", "20", "--out", str(out)]) == 0
    _, table = read_csv(out)
    assert table.shape == (21, 4) and np.all(np.isfinite(table))


@pytest.mark.parametrize("args,needle", [
    (["--name", "ntk", "--dim", "1", "--kmax", "5"], "--dim"),
    (["--name", "ntk", "--dim", "3", "--kmax", "2001"], "--kmax"),
    (["--name", "ntk", "--dim", "3", "--kmax", "-1"], "--kmax"),
    (["--name", "ntk", "--dim", "three", "--kmax", "5"], "--dim"),
    (["--name", "gauss", "--dim", "3", "--kmax", "5"], "--name"),
    (["--name", "ntk", "--depth", "1", "--dim", "3", "--kmax", "5"], "depth"),
    (["--name", "ntk", "--bias", "-1", "--dim", "3", "--kmax", "5"], "bias"),
    (["--name", "arccos1", "--depth", "3", "--dim", "3", "--kmax", "5"], "depth"),
    (["--name", "ntk", "--dim", "3", "--kmax", "5", "--activation", "swish"], "--activation"),
    (["--name", "ntk", "--bias", "100.5", "--dim", "3", "--kmax", "5"], "--bias"),
    (["--name", "ntk", "--bias", "inf", "--dim", "3", "--kmax", "5"], "--bias"),
    (["--name", "arccos0", "--activation", "tanh", "--dim", "3", "--kmax", "5"], "--activation"),
])
def test_spectrum_bad_arguments(tmp_path, capsys, args, needle):
    try:  # argparse errors exit directly
        code = main(["spectrum", *args, "--out", str(tmp_path / "x.csv")])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err
    assert not (tmp_path / "x.csv").exists()


def test_spectrum_bad_output(tmp_path, capsys):
    assert main(["spectrum", "--name", "ntk", "--dim", "3", "--kmax", "5",
                 "--out", str(tmp_path / "missing" / "x.csv")]) == 2
    assert main(["spectrum", "--name", "ntk", "--dim", "3", "--kmax", "5",
                 "--out", str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("--out" in line for line in err)


def test_spectrum_help_without_qt():
    code = ("import sys; from ntkviz.cli import main\n"
            "try:\n    main(['spectrum', '--help'])\n"
            "except SystemExit as e:\n    assert e.code == 0\n"
            "assert not any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "--kmax" in proc.stdout and "multiplicity" in proc.stdout


def test_spectrum_equals_spectrum_request(tmp_path):
    """One code path: the CLI's eigenvalues are the spectrum panel's request's."""
    from ntkviz.core import KernelSpec
    from ntkviz.jobs import SpectrumRequest

    out = tmp_path / "mu.csv"
    assert main(["spectrum", "--name", "nngp", "--depth", "4", "--bias", "0.5", "--dim", "7",
                 "--kmax", "30", "--out", str(out)]) == 0
    series = SpectrumRequest(specs=(KernelSpec("nngp", 4, 0.5),), dim=7, kmax=30)().series[0]
    _, table = read_csv(out)
    np.testing.assert_array_equal(table[:, 2], series.mu)
    np.testing.assert_array_equal(table[:, 3], series.error_estimate)


def test_bias_range_agrees_with_export(tmp_path):
    """`spectrum` and `export spectrum` accept the same bias range (ntkviz.limits.BIAS_RANGE)."""
    from ntkviz.limits import BIAS_RANGE

    out = tmp_path / "mu.csv"
    assert main(["spectrum", "--name", "ntk", "--bias", str(BIAS_RANGE[1]), "--dim", "3", "--kmax", "3",
                 "--out", str(out)]) == 0
    out2 = tmp_path / "mu2.csv"
    assert main(["export", "spectrum", "--kernels", "ntk", "--bias", str(BIAS_RANGE[1]), "--dim", "3",
                 "--kmax", "3", "--out", str(out2)]) == 0


def test_multiplicities_beyond_float64_are_exact_integers(tmp_path):
    """At p = 1000, N(p, k) exceeds 1e308 from k ≈ 308: the CSV holds exact integers
    (checked against math.comb), never inf."""
    import math

    out = tmp_path / "mu.csv"
    assert main(["spectrum", "--name", "arccos0", "--dim", "1000", "--kmax", "400", "--out", str(out)]) == 0
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    for k in (0, 1, 2, 307, 308, 400):
        expected = 1 if k == 0 else (2 * k + 998) * math.comb(k + 997, 998) // k
        assert int(rows[k][1]) == expected
    assert all("inf" not in r[1] for r in rows)


def test_exact_multiplicities_small_p():
    """N(3, k) = 2k + 1 and N(2, k) = 2 (k >= 1): closed forms."""
    from ntkviz.core.spectra.harmonics import exact_multiplicities

    assert exact_multiplicities(3, 6) == [2 * k + 1 for k in range(7)]
    assert exact_multiplicities(2, 5) == [1, 2, 2, 2, 2, 2]


def test_log10_and_trustworthy_columns(tmp_path):
    """log10_mu agrees with log10 of mu where mu is a normal float, is blank for exact zeros,
    and continues below the float64 range at p = 1000 (values checked against the decay
    between neighbouring degrees of the same parity, never a jump to blank)."""
    out = tmp_path / "mu.csv"
    assert main(["spectrum", "--name", "arccos1", "--dim", "3", "--kmax", "9", "--out", str(out)]) == 0
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    for k, n, mu, err, lg, ok, log_ok, _ in rows:
        if float(mu) > 0:
            assert float(lg) == pytest.approx(np.log10(float(mu)), rel=1e-13, abs=1e-13)
            assert ok == "True" and log_ok == "True"
        elif int(k) >= 3 and int(k) % 2 == 1:  # exact zeros of κ1
            assert lg == "" and ok == "True" and log_ok == "True"
    deep = tmp_path / "deep.csv"
    assert main(["spectrum", "--name", "arccos1", "--dim", "1000", "--kmax", "600", "--out", str(deep)]) == 0
    with open(deep, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    even = [float(r[4]) for r in rows if int(r[0]) % 2 == 0 and int(r[0]) >= 2]
    assert even[-1] < -308  # below the float64 range, still a number
    assert np.all(np.diff(even) < 0)  # decreasing in k, no gap


def test_below_the_float64_range_the_csv_says_which_log10_values_to_trust(tmp_path):
    """μ_k below 1e-308 is written as 0.0 (or subnormal) and never ``trustworthy``; the
    ``log10_trustworthy`` column says which of their ``log10_mu`` are vouched for (the
    core's flags, where the closed form of κ1 at p = 1000 agrees with ``log10_mu``)."""
    import math

    from ntkviz.core import KernelSpec, mercer_spectrum

    out = tmp_path / "far.csv"
    assert main(["spectrum", "--name", "arccos1", "--dim", "1000", "--kmax", "600",
                 "--out", str(out)]) == 0
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    sp = mercer_spectrum(KernelSpec("arccos1"), 1000, 600)
    assert [r["log10_trustworthy"] == "True" for r in rows] == list(sp.log10_trustworthy)
    under = [r for r in rows if r["log10_mu"] and float(r["mu"]) < np.finfo(float).tiny]
    assert under and all(r["trustworthy"] == "False" for r in under)
    vouched = [r for r in under if r["log10_trustworthy"] == "True"]
    assert vouched
    p = 1000  # κ1: p Γ(p/2)² Γ((k−1)/2)² / (8π² Γ((k+p+1)/2)²) at even k
    for r in vouched[::40]:
        k = int(r["k"])
        exact = (math.log(p) + 2 * math.lgamma(p / 2) + 2 * math.lgamma((k - 1) / 2)
                 - math.log(8 * math.pi ** 2) - 2 * math.lgamma((k + p + 1) / 2)) / math.log(10)
        assert abs(float(r["log10_mu"]) - exact) < 1e-6
