"""Shared test set-up.

Several tests send SIGINT to this process and expect KeyboardInterrupt (Ctrl-C). A process started
in the background by a shell without job control inherits SIGINT *ignored*, and Python then installs
no handler for it, so the signal would vanish and those runs go on to the end (a hang of minutes).
The tests restore Python's own Ctrl-C handler so that they test pendula, not how they were started.
"""

import signal

signal.signal(signal.SIGINT, signal.default_int_handler)
