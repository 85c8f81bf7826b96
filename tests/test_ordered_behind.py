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
