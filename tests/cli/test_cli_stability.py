"""``ntkviz stability``: CSV output, the same sweep as the stability view's request, errors."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.deformations.stability import SweepResult

ARGV = ["stability", "--model", "M3", "--digits", "2", "--family", "translation",
        "--amplitudes", "0.05,0.5", "--seeds", "1", "--references", "1"]


def test_stability_csv_is_the_request(tmp_path, capsys):
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.deformations.digits import digit_indices
    from ntkviz.jobs import StabilityRequest

    out = tmp_path / "s.csv"
    assert main([*ARGV, "--out", str(out)]) == 0
    rows = list(csv.reader(open(out)))
    assert rows[0] == list(SweepResult.CSV_HEADER)
    assert [float(r[0]) for r in rows[1:]] == [0.05, 0.5]
    values = np.array([[float(v) for v in r] for r in rows[1:]])
    assert np.all(np.isfinite(values)) and np.all(values[:, 3] > values[:, 1])   # NTK above CKN
    assert "stability" in capsys.readouterr().err
    # digit d = number K + d // 10 of label d % 10; references: the first K of each label
    digits = (int(digit_indices(0)[1]), int(digit_indices(1)[1]))
    request = StabilityRequest(family="translation", digits=digits, amplitudes=(0.05, 0.5), seeds=(0,),
                               architecture=PRESETS["M3"], reference_per_class=1)
    header, expected = request().to_csv_rows()
    np.testing.assert_array_equal(values, np.array(expected, dtype=float))


@pytest.mark.parametrize("args,match", [
    (["--amplitudes", "0.5,0.1"], "increasing"),
    (["--amplitudes", "0.1,0.1"], "must not repeat a value"),
    (["--amplitudes", "0,0.1"], "--amplitudes"),
    (["--amplitudes", "0.1,,0.2"], "empty"),
    (["--digits", "2000", "--references", "1"], "--digits must be at most 990 with --references 1"),
    (["--digits", "981", "--references", "2"], "--digits must be at most 980"),
    (["--references", "100"], "--references"),
    (["--seeds", "1001"], "--seeds"),
    (["--family", "bogus"], "--family"),
    (["--model", "X.json"], "cannot read model file"),
    (["--model", "M9"], "--model"),
    (["--maps", "ckn,sift"], "--maps"),
    (["--maps", "ckn,ckn"], "--maps"),
    (["--scattering-j", "3"], "--scattering-j applies to the scattering map only"),
    (["--maps", "scattering", "--scattering-l", "0"], "--scattering-l"),
    (["--maps", "scattering", "--scattering-j", "5"], "J = 5 needs image sides >= 2^J = 32"),
    (["--family", "dilation", "--amplitudes", "0.5,2"], "at most 0.95 (s = ||∇τ||∞) for the dilation family"),
])
def test_stability_errors(tmp_path, capsys, args, match):
    try:
        code = main(["stability", *args, "--out", str(tmp_path / "s.csv")])
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0], err
    assert not (tmp_path / "s.csv").exists()


def test_stability_maps_add_columns_and_keep_the_default_ones(tmp_path):
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.deformations.digits import digit_indices
    from ntkviz.core.scattering.transform import ScatteringParams
    from ntkviz.jobs import StabilityRequest

    out = tmp_path / "m.csv"
    assert main([*ARGV, "--maps", "ckn,ntk,scattering,fourier,pixels", "--scattering-j", "1",
                 "--scattering-l", "4", "--out", str(out)]) == 0
    rows = list(csv.reader(open(out)))
    header = rows[0]
    assert header[:len(SweepResult.CSV_HEADER)] == list(SweepResult.CSV_HEADER)
    extra = header[len(SweepResult.CSV_HEADER):]
    assert extra == [f"{c}_{m}" if c in ("same_label", "any_label") else f"{m}_{c}"
                     for m in ("scattering", "fourier") for c in ("mean", "std", "slope", "same_label", "any_label")]
    digits = (int(digit_indices(0)[1]), int(digit_indices(1)[1]))
    request = StabilityRequest(family="translation", digits=digits, amplitudes=(0.05, 0.5), seeds=(0,),
                               architecture=PRESETS["M3"], reference_per_class=1,
                               maps=("ckn", "ntk", "scattering", "fourier", "pixels"),
                               scattering=ScatteringParams(J=1, L=4))
    np.testing.assert_array_equal(np.array([[float(v) for v in r] for r in rows[1:]]),
                                  np.array(request().to_csv_rows()[1], dtype=float))
    # only some maps: the other maps' columns are left out
    assert main([*ARGV, "--maps", "fourier", "--out", str(out)]) == 0
    assert next(csv.reader(open(out))) == ["amplitude", "tau_sup_px", "jacobian_sup", "fourier_mean",
                                           "fourier_std", "fourier_slope", "same_label_fourier",
                                           "any_label_fourier"]
