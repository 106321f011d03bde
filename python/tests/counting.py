"""A Python thread that counts while a call runs: how the tests see that the GIL was released."""

import threading
import time


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
