"""Work done behind the caller in one thread (qacamp.ordered.behind): the
score files are encoded side by side while the scoring makes the next parts.
The calls run in the order submitted, in another thread; the first error of
the work reaches the caller; an error of the caller drops what waits and ends
the thread."""

from __future__ import annotations

import threading
import time

import pytest

from qacamp.ordered import behind


def test_calls_run_in_order_in_another_thread():
    done, threads = [], set()

    def work(i):
        time.sleep(0.002 * (i % 3))
        done.append(i)
        threads.add(threading.get_ident())

    with behind(work, depth=2) as submit:
        for i in range(30):
            submit(i)
    assert done == list(range(30))  # all done when the block ends
    assert threads and threading.get_ident() not in threads


def test_the_first_error_of_the_work_reaches_the_caller_and_later_calls_are_dropped():
    done = []

    def work(i):
        if i == 3:
            raise OSError(28, "No space left on device")
        done.append(i)

    with pytest.raises(OSError, match="No space left"):
        with behind(work) as submit:
            for i in range(100):
                submit(i)
                time.sleep(0.001)
    assert done == [0, 1, 2]


def test_an_error_at_the_last_call_is_raised_at_the_end_of_the_block():
    def work(i):
        raise ValueError(f"bad {i}")

    with pytest.raises(ValueError, match="bad 0"):
        with behind(work) as submit:
            submit(0)


def test_an_error_of_the_caller_drops_the_waiting_calls_and_ends_the_thread():
    started, release = [], threading.Event()

    def work(i):
        started.append(i)
        release.wait(5)

    before = threading.active_count()
    with pytest.raises(KeyError):
        with behind(work, depth=3) as submit:
            for i in range(4):
                submit(i)  # 0 runs, 1-3 wait
            release.set()
            raise KeyError("the caller's own error")
    assert started == [0]
    assert threading.active_count() == before


def test_numpys_lazy_submodule_is_imported_before_any_thread_starts():
    """Two scoring threads making their first polars Series from a NumPy
    array at once recursed without end in NumPy's lazy ``numpy.ma`` import
    (a race in importlib, python/cpython#149728; a `qacamp score` of the
    demo failed with RecursionError): the pools of threads of
    qacamp.ordered and the ingest's writers import it first, in the
    caller's thread."""
    import subprocess
    import sys

    code = """
import sys
import qacamp.ordered as o
before = "numpy.ma" in sys.modules
list(f() for f in o.in_order([lambda: 1, lambda: 2], 2))
after_in_order = "numpy.ma" in sys.modules
del sys.modules["numpy.ma"]
with o.behind(lambda: None):
    pass
print(before, after_in_order, "numpy.ma" in sys.modules)
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["False", "True", "True"]
