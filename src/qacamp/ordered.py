"""Work in threads with results in a fixed order: independent work run
ahead and consumed in order (:func:`in_order`), and work done behind the
caller in the order it is handed over (:func:`behind`).

Reading a run file (gunzip, columnar parsing in polars, the format's checks)
and scoring a batch of runs (polars) mostly run outside the interpreter lock,
so a second core reads the next file, or scores the next batch, while the
caller keeps the current one.  :func:`in_order` yields the results in the
order given, and each one's error is raised when its turn comes: the tables,
the warnings and the first error reported are exactly those of doing the
work one piece after the other.  At most :func:`workers` pieces run ahead
(``qacamp score --threads N`` and ``qacamp ingest --threads N`` give another
count, the cores the workflow gives the step), so memory holds a few files'
or batches' frames, not the campaign's.  :func:`behind` encodes each score
file in a thread of its own while the scoring makes the next parts.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

#: Most threads reading ahead by default (a few cores already overlap the work).
MAX_WORKERS = 4
#: Most threads a command may be given (``--threads``): each one holds a run
#: file's frames (ingest) or scores a batch (scoring) at a time.
MAX_THREADS = 64


def workers() -> int:
    """Threads to read with: the cores this process may run on (a SLURM job's
    allocation), at most :data:`MAX_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


def ready_for_threads() -> None:
    """Import, in the calling thread, the lazy submodule of NumPy that polars
    touches from any thread (``numpy.ma``: a Series made from a NumPy array),
    before worker threads start: two threads importing it at once can
    recurse without end in NumPy's lazy ``__getattr__`` (a race in
    importlib, python/cpython#149728: ``RecursionError`` in a scoring
    thread).  Every pool of threads of qacamp's starts after it."""
    import numpy.ma  # noqa: F401


def in_order(reads: Iterable[Callable[[], T]], ahead: int | None = None
             ) -> Iterator[Callable[[], T]]:
    """For each function of ``reads``, in order, a function returning its result
    (or raising its error); up to ``ahead`` (default :func:`workers`) of them
    run at a time in threads.  Reads not yet started when the caller stops
    are cancelled; those running finish in their threads, unwaited.

    The end never waits for a thread: a caller stopped by an error leaves
    this generator to the garbage collector, which may close it at any
    allocation of any thread, also while :mod:`threading` holds the lock a
    thread's start or end takes, and a join there never returns (a new
    thread that never starts, the process stuck)."""
    ahead = workers() if ahead is None else ahead
    if ahead <= 1:
        for read in reads:
            yield read
        return
    ready_for_threads()
    pool = ThreadPoolExecutor(max_workers=ahead, thread_name_prefix="qacamp-read")
    pending: deque[Future] = deque()
    it = iter(reads)
    try:
        for read in it:
            pending.append(pool.submit(read))
            if len(pending) >= ahead:
                break
        while pending:
            done = pending.popleft()
            for read in it:
                pending.append(pool.submit(read))
                break
            yield done.result
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


@contextlib.contextmanager
def behind(work: Callable[..., None], depth: int = 1) -> Iterator[Callable[..., None]]:
    """``submit(*args)``: ``work(*args)`` run in one thread, in the order the
    calls are submitted, while the caller makes the next ones (encoding and
    writing files behind the scoring; ``depth`` calls wait at most).  The
    first error of ``work`` is raised at the next ``submit`` or at the end of
    the block, which waits for the thread; after an error, and after an error
    of the caller, the calls still waiting are dropped.  Use it as a ``with``
    block of a plain function: its end waits for the thread, which a
    generator left to the garbage collector must never do (:func:`in_order`)."""
    calls: queue.Queue = queue.Queue(maxsize=max(1, depth))
    failed: list[BaseException] = []
    stop = object()

    def run() -> None:
        while (args := calls.get()) is not stop:
            if not failed:
                try:
                    work(*args)
                except BaseException as exc:  # (raised in the caller's thread)
                    failed.append(exc)

    def submit(*args) -> None:
        if failed:
            raise failed[0]
        calls.put(args)

    ready_for_threads()
    thread = threading.Thread(target=run, name="qacamp-behind")
    thread.start()
    try:
        yield submit
    except BaseException:
        failed.append(RuntimeError("stopped"))  # (the calls waiting are dropped)
        raise
    finally:
        calls.put(stop)
        thread.join()
    if failed:
        raise failed[0]


__all__ = ["MAX_THREADS", "MAX_WORKERS", "behind", "in_order", "ready_for_threads", "workers"]
