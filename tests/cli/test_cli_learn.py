"""The ``ntkviz learn`` contract: columns, rows per (kernel, n), bad input exit 2."""
import csv

import pytest

from ntkviz.cli import main


def _run(args, tmp_path, capsys):
    out = tmp_path / "curve.csv"
    try:
        code = main(["learn", *args, "--out", str(out)])
    except SystemExit as exc:
        code = exc.code
    return code, out, capsys.readouterr().err


def test_rows_and_columns(tmp_path, capsys):
    code, out, err = _run(["--kernels", "ntk,arccos1", "--dim", "3", "--target", "1:1,2:1,4:1,7:1",
                           "--ridge", "1e-3", "--noise", "0", "--n", "50,100", "--seeds", "2",
                           "--seed", "0", "--n-test", "200", "--kmax", "200"], tmp_path, capsys)
    assert code == 0, err
    rows = list(csv.DictReader(out.open()))
    assert [(r["kernel"], r["n"]) for r in rows] == [("ntk", "50"), ("ntk", "100"),
                                                     ("arccos1", "50"), ("arccos1", "100")]
    for r in rows:
        theory, emp, sem = float(r["theory_test_mse"]), float(r["empirical_test_mse"]), float(r["empirical_sem"])
        assert theory > 0 and emp > 0 and sem >= 0 and float(r["effective_ridge"]) > 0
        # the app's error bar: 95 % Student t over 2 seeds, t(0.975, 1 dof) = 12.7062 (tables)
        assert float(r["empirical_ci95"]) == pytest.approx(12.7062 * sem, rel=1e-5)
        # degree 7 sits on an exact zero of both kernels: its power 1/15 is never learned
        assert theory >= 1 / 15 and emp >= 0.9 / 15


def test_no_empirical_and_large_n(tmp_path, capsys):
    code, out, err = _run(["--kernels", "nngp", "--depth", "3", "--dim", "10", "--target", "ridge:0.2",
                           "--n", "100,50000", "--kmax", "100"], tmp_path, capsys)
    assert code == 0, err
    assert "Monte-Carlo skipped for n > 20000" in err
    rows = list(csv.DictReader(out.open()))
    assert rows[1]["empirical_test_mse"] == "" and float(rows[1]["theory_test_mse"]) > 0
    assert rows[1]["empirical_ci95"] == "" and float(rows[0]["empirical_ci95"]) > 0
    code, out, err = _run(["--kernels", "ntk", "--dim", "3", "--n", "100", "--no-empirical"], tmp_path, capsys)
    assert code == 0 and list(csv.DictReader(out.open()))[0]["empirical_test_mse"] == ""


@pytest.mark.parametrize("bad,needle", [
    (["--target", "1001:1"], "degrees in [0, 1000]"),
    (["--target=-1:1"], "--target '-1:1' is not valid"),
    (["--target", "1:nan"], "|c| <= 1e+100"),
    (["--ridge", "-1"], "--ridge"),
    (["--noise", "-0.1"], "--noise"),
    (["--n", "0"], "--n must be integers in [1, 10000000]"),
    (["--seeds", "0"], "--seeds"),
    (["--dim", "1001"], "--dim"),
    (["--kernels", "relu"], "--kernels"),
])
def test_bad_input_one_line_exit_2(bad, needle, tmp_path, capsys):
    base = {"--kernels": "ntk", "--dim": "3", "--n": "100"}
    args = []
    for key, value in base.items():
        if not any(b.split("=")[0] == key for b in bad):
            args += [key, value]
    code, out, err = _run(args + bad + ["--no-empirical"], tmp_path, capsys)
    assert code == 2 and needle in err and err.count("\n") == 1
    assert not out.exists()
