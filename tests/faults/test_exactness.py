"""An export draws exactly the parameters asked for, or refuses them; the figure is
never clamped or rounded to a slider's range. All exports run in one offscreen process."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

#: (name, argv without --out, suffix)
EXPORTS = {
    "rotation 45": (["export", "deform", "--label", "1", "--rotation", "45"], ".png"),
    "rotation 90": (["export", "deform", "--label", "1", "--rotation", "90"], ".png"),
    "translate 6": (["export", "deform", "--label", "1", "--translate-x", "6"], ".png"),
    "translate 100": (["export", "deform", "--label", "1", "--translate-x", "100"], ".png"),
    "scale 1.5": (["export", "deform", "--label", "1", "--scale", "1.5"], ".png"),
    "scale 3": (["export", "deform", "--label", "1", "--scale", "3"], ".png"),
    "shear 0.6": (["export", "deform", "--label", "1", "--shear", "0.6"], ".png"),
    "shear 5": (["export", "deform", "--label", "1", "--shear", "5"], ".png"),
    "bias 0.12345": (["export", "kernel", "--kernels", "ntk", "--bias", "0.12345"], ".svg"),
    "bias 0.0004": (["export", "kernel", "--kernels", "ntk", "--bias", "0.0004"], ".svg"),
    "width 1 csv": (["export", "kernel", "--kernels", "ntk", "--net-width", "1", "--samples", "1"], ".csv"),
    "width 1 png": (["export", "kernel", "--kernels", "ntk", "--net-width", "1", "--samples", "1"], ".png"),
}

SCRIPT = """
import contextlib, hashlib, io, json, sys
from ntkviz.cli import main
results = {}
for name, (argv, out) in json.loads(sys.argv[1]).items():
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv + ["--out", out])
        except SystemExit as exc:
            code = exc.code
    try:
        data = open(out, "rb").read()
    except OSError:
        data = b""
    results[name] = {"code": code, "err": err.getvalue()[-300:],
                     "sha": hashlib.sha256(data).hexdigest() if data else None,
                     "text": data.decode("utf-8", "replace") if out.endswith(".svg") else ""}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exact")
    jobs = {name: (argv, str(folder / f"{i}{suffix}"))
            for i, (name, (argv, suffix)) in enumerate(EXPORTS.items())}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(jobs)], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr[-500:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _drawn_or_refused(r):
    assert r["code"] in (0, 2), r["err"]
    return r["code"] == 0


@pytest.mark.parametrize("small,large", [("rotation 45", "rotation 90"), ("translate 6", "translate 100"),
                                         ("scale 1.5", "scale 3"), ("shear 0.6", "shear 5")])
def test_deformation_drawn_as_asked(results, small, large):
    a, b = results[small], results[large]
    assert _drawn_or_refused(a)
    if _drawn_or_refused(b):
        assert a["sha"] != b["sha"], f"{large} drew the same picture as {small}"


@pytest.mark.parametrize("name,label", [("bias 0.12345", "0.12345"), ("bias 0.0004", "0.0004")])
def test_bias_drawn_as_asked(results, name, label):
    r = results[name]
    assert _drawn_or_refused(r)
    assert label in r["text"], f"the figure's legend does not show β = {label}"


def test_csv_and_figure_accept_the_same_values(results):
    """--net-width 1 worked for CSV while the PNG said "width m must be in [10, 65536]":
    one model decides for every format."""
    csv_run, png_run = results["width 1 csv"], results["width 1 png"]
    assert csv_run["code"] == png_run["code"], (csv_run["err"], png_run["err"])
    assert csv_run["code"] in (0, 2)
