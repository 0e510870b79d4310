"""``ntkviz kernel``: the CSV equals evaluate_kernel; bad arguments give one line and exit 2."""
import csv
import subprocess
import sys

import numpy as np
import pytest

from ntkviz.cli import main
from ntkviz.core.kernels.dotkernel import KernelSpec, evaluate_kernel


def _read(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["u", "value", "derivative"]
    return np.array([[float(x) for x in r] for r in rows[1:]])


def test_grid_csv_equals_evaluate_kernel(tmp_path):
    out = tmp_path / "k.csv"
    assert main(["kernel", "--name", "ntk", "--depth", "3", "--grid", "201", "--out", str(out)]) == 0
    data = _read(out)
    u = np.linspace(-1, 1, 201)
    value, deriv = evaluate_kernel(KernelSpec("ntk", 3), u)
    np.testing.assert_array_equal(data[:, 0], u)
    np.testing.assert_array_equal(data[:, 1], value)  # full precision round trip
    np.testing.assert_array_equal(data[:, 2], deriv)
    assert data[0, 2] == -np.inf and data[-1, 2] == np.inf
    text = out.read_text()
    assert "-inf" in text and "nan" not in text.lower()


def test_u_list_with_options(tmp_path):
    out = tmp_path / "k.csv"
    argv = ["kernel", "--name", "nngp", "--depth", "4", "--bias", "0.25", "--activation", "tanh",
            "--normalize", "--u", "-1,0.1,0.5,1", "--out", str(out)]
    assert main(argv) == 0
    data = _read(out)
    value, deriv = evaluate_kernel(KernelSpec("nngp", 4, 0.25, "tanh", True), [-1, 0.1, 0.5, 1])
    np.testing.assert_array_equal(data[:, 1], value)
    np.testing.assert_array_equal(data[:, 2], deriv)
    assert data[-1, 1] == pytest.approx(1.0, rel=1e-15)


def test_rounding_outside_is_accepted(tmp_path):
    out = tmp_path / "k.csv"
    assert main(["kernel", "--name", "arccos1", "--u", "1.0000000000001", "--out", str(out)]) == 0
    assert _read(out)[0, 1] == 1.0


BAD_ARGS = [
    ["--name", "ntk", "--u", "1.1"],
    ["--name", "ntk", "--u", "nan"],
    ["--name", "ntk", "--depth", "1", "--grid", "3"],
    ["--name", "ntk", "--depth", "51", "--grid", "3"],
    ["--name", "foo", "--grid", "3"],
    ["--name", "ntk", "--activation", "swish", "--grid", "3"],
    ["--name", "ntk", "--grid", "1"],
    ["--name", "ntk", "--grid", "100000000"],
    ["--name", "ntk", "--bias", "-1", "--grid", "3"],
    ["--name", "ntk", "--bias", "nan", "--grid", "3"],
    ["--name", "arccos0", "--depth", "3", "--grid", "3"],
    ["--name", "ntk", "--grid", "3", "--u", "0.5"],
    ["--name", "ntk"],
    ["--name", "ntk", "--u=0.5,,0.2"],
    ["--name", "ntk", "--u=,"],
    ["--name", "ntk", "--u=-1.0000001"],
    ["--name", "arccos0", "--activation", "tanh", "--grid", "3"],
    ["--name", "arccos1", "--bias", "0.5", "--grid", "3"],
    ["--name", "arccos1", "--depth", "2", "--grid", "3"],
]


@pytest.fixture(params=BAD_ARGS, ids=[" ".join(a) for a in BAD_ARGS])
def args(request):
    return request.param


def _run(argv, capsys):
    """main() in-process: (exit code, stderr); argparse errors exit through SystemExit."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def test_bad_arguments_one_line_exit_2(tmp_path, capsys, args):
    out = tmp_path / "k.csv"
    code, err = _run(["kernel", *args, "--out", str(out)], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "error" in err
    assert not out.exists()


def test_subprocess_error_and_exit_code(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ntkviz", "kernel", "--name", "ntk", "--u", "1.5",
                           "--out", str(tmp_path / "k.csv")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "ntkviz kernel: error: argument --u: must be cosines in [-1, 1], got 1.5"]


def test_bad_output_path(tmp_path, capsys):
    assert main(["kernel", "--name", "ntk", "--grid", "3", "--out", str(tmp_path / "k.txt")]) == 2
    assert main(["kernel", "--name", "ntk", "--grid", "3", "--out", str(tmp_path / "no" / "k.csv")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 2


def test_help():
    proc = subprocess.run([sys.executable, "-m", "ntkviz", "kernel", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    for word in ("--name", "--depth", "--bias", "--activation", "--normalize", "--grid", "--u", "--out"):
        assert word in proc.stdout


def test_negative_u_forms(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert main(["kernel", "--name", "ntk", "--u=-0.5,-1e-3", "--out", str(a)]) == 0
    assert main(["kernel", "--name", "ntk", "--u", "-0.5,-1e-3", "--out", str(b)]) == 0
    np.testing.assert_array_equal(_read(a), _read(b))
    assert _read(a)[:, 0].tolist() == [-0.5, -1e-3]


def test_message_names_the_value(tmp_path, capsys):
    """u = -1.0000001 is reported with its own digits, not rounded to -1."""
    code, err = _run(["kernel", "--name", "ntk", "--u=-1.0000001", "--out", str(tmp_path / "k.csv")],
                     capsys)
    assert code == 2 and "-1.0000001" in err and "[-1, 1]" in err


def test_csv_equals_kernel_curve_request(tmp_path):
    """One code path: the CLI grid equals the kernel-curve panel's request on the same grid."""
    from ntkviz.jobs import KernelCurveRequest

    out = tmp_path / "k.csv"
    assert main(["kernel", "--name", "nngp", "--depth", "5", "--bias", "0.5", "--grid", "101",
                 "--out", str(out)]) == 0
    curve = KernelCurveRequest(specs=(KernelSpec("nngp", 5, 0.5),), n_points=101, derivative=True)()
    np.testing.assert_array_equal(_read(out)[:, 1], curve.curves[0].value)
    np.testing.assert_array_equal(_read(out)[:, 2], curve.curves[0].derivative)
