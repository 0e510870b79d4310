"""Dispatcher: latest wins, throttling, errors, generators, heavy pool, shutdown."""
from __future__ import annotations

import threading
import time

import pytest


def collect(dispatcher):
    events = []
    dispatcher.returned.connect(lambda k, i, r: events.append(("returned", k, i, r)))
    dispatcher.errored.connect(lambda k, i, m: events.append(("errored", k, i, m)))
    dispatcher.yielded.connect(lambda k, i, r: events.append(("yielded", k, i, r)))
    return events


def test_returns_result_on_gui_thread(qtbot, dispatcher):
    threads = []
    dispatcher.returned.connect(lambda *a: threads.append(threading.current_thread()))
    with qtbot.waitSignal(dispatcher.returned, timeout=5000) as blocker:
        rid = dispatcher.submit("a", lambda: 41 + 1)
    assert blocker.args == ["a", rid, 42]
    assert threads == [threading.main_thread()]


def test_burst_delivers_only_the_last(qtbot, dispatcher):
    events = collect(dispatcher)
    for v in range(50):
        rid = dispatcher.submit("a", lambda v=v: (time.sleep(0.002), v)[1])
    qtbot.waitUntil(lambda: not dispatcher.is_busy("a"), timeout=5000)
    returned = [e for e in events if e[0] == "returned"]
    assert returned == [("returned", "a", rid, 49)]
    assert dispatcher.latest_id("a") == rid == 50


def test_superseded_result_shows_progress_then_newest_wins(qtbot, dispatcher):
    """While a newer request waits, the running job's result is still drawn (live
    updates during a drag); the newest result arrives last and is what stays."""
    events = collect(dispatcher)
    started = threading.Event()

    def slow():
        started.set()
        time.sleep(0.3)
        return "old"

    first = dispatcher.submit("a", slow, immediate=True)
    assert started.wait(5)
    middle = dispatcher.submit("a", lambda: "dropped: superseded before it started", immediate=True)
    rid = dispatcher.submit("a", lambda: "new", immediate=True)
    qtbot.waitUntil(lambda: not dispatcher.is_busy("a"), timeout=5000)
    assert middle < rid
    assert [e for e in events if e[0] == "returned"] == [
        ("returned", "a", first, "old"), ("returned", "a", rid, "new")]


def test_cancelled_result_is_dropped(qtbot, dispatcher):
    events = collect(dispatcher)
    started = threading.Event()

    def slow():
        started.set()
        time.sleep(0.3)
        return "cancelled"

    dispatcher.submit("a", slow, immediate=True)
    assert started.wait(5)
    dispatcher.cancel("a")
    qtbot.waitUntil(lambda: not dispatcher.is_busy("a"), timeout=5000)
    qtbot.wait(50)
    assert [e for e in events if e[0] == "returned"] == []
    with qtbot.waitSignal(dispatcher.returned, timeout=5000) as blocker:
        rid = dispatcher.submit("a", lambda: "after", immediate=True)
    assert blocker.args == ["a", rid, "after"]


def test_keys_are_independent(qtbot, dispatcher):
    events = collect(dispatcher)
    dispatcher.submit("a", lambda: 1, immediate=True)
    dispatcher.submit("b", lambda: 2, immediate=True)
    qtbot.waitUntil(lambda: len(events) == 2, timeout=5000)
    assert sorted((e[1], e[3]) for e in events) == [("a", 1), ("b", 2)]


def test_error_becomes_readable_message_and_dispatcher_keeps_working(qtbot, dispatcher):
    def bad():
        raise ValueError("depth must be in [2, 50], got 99")

    with qtbot.waitSignal(dispatcher.errored, timeout=5000) as blocker:
        dispatcher.submit("a", bad, immediate=True)
    assert blocker.args[2] == "depth must be in [2, 50], got 99"

    with qtbot.waitSignal(dispatcher.errored, timeout=5000) as blocker:
        dispatcher.submit("a", lambda: 1 / 0, immediate=True)
    assert blocker.args[2].startswith("ZeroDivisionError")

    with qtbot.waitSignal(dispatcher.returned, timeout=5000) as blocker:
        dispatcher.submit("a", lambda: "fine", immediate=True)
    assert blocker.args[2] == "fine"


def test_generator_yields_then_returns_its_value_only(qtbot, dispatcher):
    """Every item goes to ``yielded``; ``returned`` carries the generator's return value
    (a generator that returns nothing returns None: its last item is not a response)."""
    events = collect(dispatcher)

    def gen():
        for i in range(4):
            yield i

    with qtbot.waitSignal(dispatcher.returned, timeout=5000) as blocker:
        dispatcher.submit_generator("g", gen)
    assert [e[3] for e in events if e[0] == "yielded"] == [0, 1, 2, 3]
    assert blocker.args[2] is None


def test_generator_return_value_wins(qtbot, dispatcher):
    def gen():
        yield 1
        return "done"

    with qtbot.waitSignal(dispatcher.returned, timeout=5000) as blocker:
        dispatcher.submit_generator("g", gen)
    assert blocker.args[2] == "done"


def test_cancel_stops_generator_between_items(qtbot, dispatcher):
    events = collect(dispatcher)
    produced = []

    def gen():
        for i in range(1000):
            produced.append(i)
            time.sleep(0.005)
            yield i

    dispatcher.submit_generator("g", gen)
    qtbot.waitUntil(lambda: any(e[0] == "yielded" for e in events), timeout=5000)
    dispatcher.cancel("g")
    qtbot.waitUntil(lambda: not dispatcher.is_busy("g"), timeout=5000)
    assert len(produced) < 1000
    assert not [e for e in events if e[0] == "returned"]


def test_heavy_jobs_never_overlap(qtbot, dispatcher):
    lock = threading.Lock()
    running, peak = [0], [0]

    def job():
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return True

    for key in "abcd":
        dispatcher.submit(key, job, heavy=True, immediate=True)
    qtbot.waitUntil(lambda: not dispatcher.busy_keys(), timeout=5000)
    assert peak[0] == 1


def test_busy_signal(qtbot, dispatcher):
    states = []
    dispatcher.busy.connect(lambda k, b: states.append((k, b)))
    with qtbot.waitSignal(dispatcher.returned, timeout=5000):
        dispatcher.submit("a", lambda: 0)
    qtbot.waitUntil(lambda: states[-1:] == [("a", False)], timeout=5000)
    assert states == [("a", True), ("a", False)]


def test_shutdown_waits_and_ignores_later_submissions(qtbot, qapp):
    from ntkviz.gui.workers import Dispatcher

    d = Dispatcher()
    events = collect(d)
    finished = threading.Event()

    def slow():
        time.sleep(0.2)
        finished.set()
        return 1

    d.submit("a", slow, immediate=True)
    time.sleep(0.05)
    d.shutdown()
    assert finished.is_set()  # waited for the running job
    assert d.submit("a", lambda: 2) == 0
    qapp.processEvents()
    assert not [e for e in events if e[0] == "returned"]


def test_readable_error():
    from ntkviz.gui.workers import readable_error

    assert readable_error(ValueError("width must be >= 1")) == "width must be >= 1"
    assert readable_error(KeyError("x")) == "KeyError: 'x'"
    assert readable_error(RuntimeError()) == "RuntimeError"


def test_submit_rejects_non_callable(dispatcher):
    with pytest.raises(TypeError, match="callable"):
        dispatcher.submit("a", 3)


# ------------------------------------------------------------------ one throttle
def _wired_panel(dispatcher, started):
    """A panel on a Qt-free model whose slider and checkbox write through the model,
    and whose job records the time it starts."""
    from dataclasses import dataclass

    from PySide6 import QtWidgets

    from ntkviz.gui.panels._base import QtPanel
    from ntkviz.gui.controls import LabeledSlider
    from ntkviz.models import ParamModel
    from ntkviz.panels import PanelSpec

    @dataclass(frozen=True)
    class Params:
        width: int = 100
        flag: bool = False

        def __post_init__(self):
            if not 1 <= self.width <= 100000:
                raise ValueError(f"width must be in [1, 100000], got {self.width}")

    class Model(ParamModel):
        @classmethod
        def build_request(cls, params):
            return lambda: started.append((time.perf_counter(), params)) or params

    Model.Params = Params

    class Panel(QtPanel):
        def __init__(self, dispatcher):
            super().__init__(dispatcher, spec=PanelSpec("wired", "Wired", Model, Panel))
            self.slider = LabeledSlider("width m", 1, 100000, 100, mapping="log", integer=True)
            self.box = QtWidgets.QCheckBox("flag")
            self.slider.valueChanged.connect(lambda v: self.model.update(width=v))
            self.box.toggled.connect(lambda on: self.model.update(flag=on))

        def apply_response(self, response):
            pass

        def plot_items(self):
            return {}

    return Panel(dispatcher)


@pytest.mark.parametrize("emit", ["slider", "checkbox"])
def test_a_widget_value_never_becomes_a_delay(qtbot, emit):
    """valueChanged(20000) / toggled(True) start the job within ~50 ms: the value is
    a parameter, never a throttle delay (the dispatcher's delay is fixed: 30 ms)."""
    from ntkviz.gui.workers import Dispatcher

    dispatcher = Dispatcher(throttle_ms=30)
    try:
        started = []
        panel = _wired_panel(dispatcher, started)
        delays = []
        for trial in range(3):  # the best of three: a shared machine can stall one run
            started.clear()
            t0 = time.perf_counter()
            if emit == "slider":
                panel.slider.valueChanged.emit(20000 + trial)
            else:
                panel.box.toggled.emit(trial % 2 == 0)
            qtbot.waitUntil(lambda: bool(started), timeout=2000)
            delays.append(started[0][0] - t0)
            params = started[0][1]
            if emit == "slider":
                assert (params.width, params.flag) == (20000 + trial, False)
            else:
                assert params.flag is (trial % 2 == 0)
            qtbot.waitUntil(lambda: not dispatcher.is_busy("wired"), timeout=2000)
        assert min(delays) < 0.05 + 0.03, f"job started after {min(delays) * 1000:.0f} ms"
    finally:
        dispatcher.shutdown()


def test_refresh_takes_no_positional_value(qtbot, dispatcher):
    started = []
    panel = _wired_panel(dispatcher, started)
    with pytest.raises(TypeError):
        panel.refresh(20000)


@pytest.mark.own_gc
def test_garbage_is_collected_on_the_gui_thread_only(qtbot, qapp):
    """While a dispatcher is open, a job making cyclic garbage on a worker thread never
    runs a collection there (a collection on a worker frees pyqtgraph items of the GUI
    thread from the wrong thread); the GUI-thread timer collects it; after shutdown
    automatic collection is as it was before."""
    import gc

    from ntkviz.gui.collector import GUI_THREAD_GC
    from ntkviz.gui.workers import Dispatcher

    held_before = GUI_THREAD_GC.held  # by a dispatcher another test left open, if any
    enabled_before = gc.isenabled()  # the test session turns automatic collection off
    collections = []  # (thread, generation) of every collection

    def record(phase, info):
        if phase == "start":
            collections.append((threading.get_ident(), info["generation"]))

    class Node:
        def __init__(self):
            self.me = self  # a reference cycle: only the collector frees it

    def make_garbage():
        for _ in range(50_000):  # ~70 times the generation-0 threshold
            Node()
        return threading.get_ident()

    gc.callbacks.append(record)
    d = Dispatcher()
    try:
        assert GUI_THREAD_GC.held and not gc.isenabled()
        with qtbot.waitSignal(d.returned, timeout=20000) as blocker:
            d.submit("garbage", make_garbage, immediate=True)
        worker = blocker.args[2]
        assert worker != threading.get_ident()
        qtbot.waitUntil(lambda: any(t == threading.get_ident() for t, _ in collections),
                        timeout=5000)
    finally:
        d.shutdown()
        gc.callbacks.remove(record)
    assert not any(t == worker for t, _ in collections), "a collection ran on the worker thread"
    assert GUI_THREAD_GC.held == held_before and gc.isenabled() == (enabled_before and not held_before)


@pytest.mark.own_gc
def test_the_collector_is_held_until_every_dispatcher_is_shut_down(qapp):
    import gc

    from ntkviz.gui.collector import GUI_THREAD_GC
    from ntkviz.gui.workers import Dispatcher

    held_before = GUI_THREAD_GC.held  # by a dispatcher another test left open, if any
    enabled_before = gc.isenabled()  # the test session turns automatic collection off
    a, b = Dispatcher(), Dispatcher()
    a.shutdown()
    assert GUI_THREAD_GC.held and not gc.isenabled()
    a.shutdown()  # twice: still held by b
    assert GUI_THREAD_GC.held
    b.shutdown()
    assert GUI_THREAD_GC.held == held_before and gc.isenabled() == (enabled_before and not held_before)
