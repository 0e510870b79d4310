"""The Dask path under faults: an address where something else listens fails fast with one
line (exit 2) and nothing after it; Ctrl+C with local workers prints one line (exit 130).

The services are started here, on the loopback: an HTTP server (the dashboard-port mistake),
a port that sends garbage (a length header of exabytes) and a port that accepts and never
answers. Commands run in their own process where what comes after the error matters
(``Exception ignored in: Client.__del__`` appeared ~10 s after the message)."""
from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from faultlib import error_line, run_cli

LIMIT_S = 10.0  # every refusal of a scheduler address arrives within this


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no request log on the test's stderr
        pass


class _Garbage(socketserver.BaseRequestHandler):
    """Sends a frame header announcing 2^61 bytes, then junk, and keeps the line open."""

    def handle(self):
        try:
            self.request.sendall((2 ** 61).to_bytes(8, "little") * 4 + os.urandom(256))
            time.sleep(LIMIT_S + 5)
        except OSError:
            pass


class _Silent(socketserver.BaseRequestHandler):
    """Accepts and never says a word."""

    def handle(self):
        time.sleep(LIMIT_S + 5)


def _serve(handler) -> tuple[socketserver.TCPServer, str]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def services():
    servers = {}
    for name, handler in (("http", _Quiet), ("garbage", _Garbage), ("silent", _Silent)):
        servers[name] = _serve(handler)
    yield {name: address for name, (_, address) in servers.items()}
    for server, _ in servers.values():
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("dask-inputs")
    np.save(d / "a.npy", np.random.default_rng(1).random((5, 8, 8)))
    (d / "m.json").write_text(json.dumps([{"npatch": 3, "subsampling": 2}]))
    return d


def _gram(inputs, out, *extra):
    return ["gram", "--model", inputs / "m.json", "--mode", "ntk", "--images", inputs / "a.npy",
            "--out", out, *extra]


CASES = {  # service, scheme prefix
    "HTTP server (the dashboard port)": ("http", "tcp://"),
    "HTTP server, no scheme": ("http", ""),
    "garbage frames": ("garbage", "tcp://"),
    "accepts and stays silent": ("silent", "tcp://"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_not_a_scheduler_fails_fast(case, services, inputs, tmp_path, capsys):
    service, scheme = CASES[case]
    address = scheme + services[service]
    start = time.perf_counter()
    code, _, err = run_cli(_gram(inputs, tmp_path / "K.zarr", "--scheduler", address), capsys)
    took = time.perf_counter() - start
    line = error_line(err)
    assert code == 2 and f"{address}: not a Dask scheduler" in line, line
    assert "MemoryError" not in line and "internal error" not in line, line
    assert took <= LIMIT_S, f"took {took:.1f} s"
    assert not (tmp_path / "K.zarr").exists()


def test_classify_shares_the_check(services, tmp_path, capsys):
    rng = np.random.default_rng(2)
    np.savez(tmp_path / "d.npz", images=rng.random((6, 8, 8)), labels=np.arange(6) % 2)
    (tmp_path / "m.json").write_text(json.dumps([{"npatch": 3, "subsampling": 2}]))
    address = "tcp://" + services["http"]
    code, _, err = run_cli(["classify", "--train", tmp_path / "d.npz", "--test", tmp_path / "d.npz",
                            "--model", tmp_path / "m.json", "--kernels", "ntk", "--train-sizes", "4",
                            "--scheduler", address, "--out", tmp_path / "r.csv"], capsys)
    assert code == 2 and f"{address}: not a Dask scheduler" in error_line(err)


def _subprocess_env() -> dict:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


BAD_ADDRESSES = {
    "bogus": ("bogus", "bogus"),
    "empty": ("", "''"),
    "http scheme, nothing listening": ("http://127.0.0.1:{free}", "http://127.0.0.1:"),
    "nothing listening": ("tcp://127.0.0.1:{free}", "no Dask scheduler reachable"),
    "garbage frames": ("tcp://{garbage}", "not a Dask scheduler"),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("case", BAD_ADDRESSES, ids=list(BAD_ADDRESSES))
def test_one_line_and_nothing_after_it(case, services, inputs, tmp_path):
    """The whole stderr of the process is the one line: no ``Client.__del__`` traceback when
    the interpreter exits."""
    template, needle = BAD_ADDRESSES[case]
    address = template.format(free=_free_port(), garbage=services["garbage"])
    argv = [sys.executable, "-m", "ntkviz", *map(str, _gram(inputs, tmp_path / "K.npy", "--scheduler", address))]
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=_subprocess_env())
    assert proc.returncode == 2, proc.stderr[-800:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, \
        proc.stderr[-1500:]
    assert lines[0].startswith("ntkviz gram: error: --scheduler") and needle in lines[0], lines[0]
    assert time.perf_counter() - start < LIMIT_S + 10  # the interpreter's start and exit included


# ------------------------------------------------------------------ Ctrl+C with local workers
@pytest.fixture(scope="module")
def digits(tmp_path_factory):
    """300 bundled digits: with M1, tens of thousands of pairs (tens of seconds on 2 workers)."""
    from ntkviz.core.deformations.digits import load_digits

    d = tmp_path_factory.mktemp("sigint")
    np.save(d / "g.npy", load_digits()[0][:300].astype(np.float64) / 255.0)
    return d / "g.npy"


class _Stderr:
    """Collects a process's stderr on a thread (progress bars end lines in \\r)."""

    def __init__(self, proc):
        self.text = ""
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc):
        for chunk in iter(lambda: proc.stderr.read(1), ""):
            self.text += chunk

    def wait_for(self, predicate, proc, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end and proc.poll() is None:
            if predicate():
                return True
            time.sleep(0.05)
        return predicate()

    def join(self):
        self._thread.join(timeout=30)


def _spawned_workers(pid: int) -> list[int]:
    """Worker processes (multiprocessing's spawn) among the descendants of ``pid``."""
    import psutil

    out = []
    try:
        for c in psutil.Process(pid).children(recursive=True):
            try:
                if "spawn_main" in " ".join(c.cmdline()):
                    out.append(c.pid)
            except psutil.Error:
                pass
    except psutil.Error:
        pass
    return out


def _progress(text: str) -> bool:
    import re

    return re.search(r"gram:\s+\d+%\|[^|]*\|\s*[1-9]", text) is not None  # pairs done > 0


#: when the Ctrl+C comes: worker processes importing, the cluster just up (workers idle,
#: first tasks sent), tiles being computed
WHEN = {
    "while the worker processes start": lambda proc, err: err.wait_for(lambda: _spawned_workers(proc.pid), proc,
                                                                       120),
    "once the cluster is up": lambda proc, err: err.wait_for(lambda: "gram:" in err.text, proc, 300),
    "while tiles are computed": lambda proc, err: err.wait_for(lambda: _progress(err.text), proc, 300),
}


@pytest.mark.parametrize("when", WHEN, ids=list(WHEN))
def test_ctrl_c_with_local_workers_prints_one_line(when, digits, tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl+C sends it: exit 130, the one
    line "ntkviz: interrupted", no traceback of a worker, of asyncio or of the cluster."""
    argv = [sys.executable, "-m", "ntkviz", "gram", "--model", "M1", "--mode", "ntk", "--images", str(digits),
            "--tile-size", "20", "--workers", "2", "--out", str(tmp_path / "K.zarr")]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=_subprocess_env())
    err = _Stderr(proc)
    try:
        assert WHEN[when](proc, err), f"never got there: {err.text[-500:]}"
        assert proc.poll() is None, "finished before the interrupt"
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err.join()
    lines = [ln for ln in err.text.replace("\r", "\n").splitlines() if ln.strip() and not ln.startswith("gram:")]
    assert proc.returncode == 130, err.text[-1500:]
    assert lines == ["ntkviz: interrupted"], err.text[-3000:]
    assert _wait_group_gone(proc.pid, 30), "worker processes outlived the command"


def _wait_group_gone(pgid: int, timeout: float) -> bool:
    """True once no process of the command's process group is left."""
    import psutil

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        left = []
        for p in psutil.process_iter():
            try:
                if os.getpgid(p.pid) == pgid:
                    left.append(p.pid)
            except (ProcessLookupError, PermissionError):
                pass
        if not left:
            return True
        time.sleep(0.2)
    return False
