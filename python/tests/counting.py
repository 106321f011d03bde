"""Python threads beside a call into pendula: one that counts while it runs (how the tests see that
the GIL was released), and one that interrupts it once it is under way."""

import os
import signal
import threading
import time

import pytest


def count_while(call):
    """Runs `call()` while another Python thread counts; returns (seconds the call took, marks the
    counter made during it, one per 1000 increments). A call holding the GIL would let the
    counter run only at its 50 ms signal polls."""
    marks = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
            if n % 1000 == 0:
                marks.append(time.perf_counter())

    t = threading.Thread(target=count)
    t.start()
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    t.join()
    return end - start, sum(1 for c in marks if start < c < end)


def interrupted_once_under_way(call, cpu=0.5, patience=60.0):
    """Runs `call()` and sends this process SIGINT (a terminal's Ctrl-C) once the process has
    spent `cpu` seconds of CPU in it: a condition, not a fixed delay, so that on a busy machine
    the signal cannot land before the call is under way (or after it ended). Expects
    KeyboardInterrupt from the call and returns the CPU seconds from its start to the raise.
    Fails if the call is not `cpu` seconds in within `patience` seconds of wall time."""
    done = threading.Event()
    sent = threading.Event()
    start = time.process_time()

    def signal_when_under_way():
        end = time.monotonic() + patience
        while not done.is_set() and time.monotonic() < end:
            if time.process_time() - start >= cpu:
                sent.set()
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.002)

    t = threading.Thread(target=signal_when_under_way)
    t.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        done.set()
        t.join()
    assert sent.is_set(), f"the call was not {cpu} s of CPU in within {patience} s"
    return time.process_time() - start
