"""Loaded (through ``PYTHONPATH``) by the dashboard servers that browser tests start: SIGUSR1
makes such a process print every thread's stack to its stderr, which the test's server log
keeps. A browser test that times out sends it, so a failure in CI shows where the server was
(a script run stuck on a lock, or no run at all) instead of only what the page showed."""

import faulthandler
import signal

faulthandler.register(signal.SIGUSR1, all_threads=True)
