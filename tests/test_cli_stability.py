"""``ntkviz stability``: CSV output and errors."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.stability import SweepResult


def test_stability_csv(tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert main(["stability", "--model", "M3", "--digits", "2", "--family", "translation",
                 "--amplitudes", "0.05,0.5", "--seeds", "1", "--references", "1", "--out", str(out)]) == 0
    rows = list(csv.reader(open(out)))
    assert rows[0] == list(SweepResult.CSV_HEADER)
    assert [float(r[0]) for r in rows[1:]] == [0.05, 0.5]
    values = np.array([[float(v) for v in r] for r in rows[1:]])
    assert np.all(np.isfinite(values)) and np.all(values[:, 3] > values[:, 1])   # NTK above CKN
    assert "stability" in capsys.readouterr().err


@pytest.mark.parametrize("args,match", [
    (["--amplitudes", "0.5,0.1"], "increasing"),
    (["--digits", "2000"], "--digits must be at most"),
    (["--model", "X.json"], "cannot read model file"),
])
def test_stability_errors(tmp_path, capsys, args, match):
    assert main(["stability", *args, "--out", str(tmp_path / "s.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and match in err[0]
