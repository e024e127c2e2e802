"""How a tournament runner started from the dashboard ended, in one line for the page.

The runner is ``arena tournament run``: its console output (a redrawn progress bar, the
closing standings, and any log line of its workers, such as a sandbox warning) is made
for a terminal, and pasting its last lines into the page showed all of that raw. The page
now says one thing: nothing while it runs or after it finished cleanly (the progress
and the Standings page say the rest), else why it stopped, taken from the CLI's own
one-line error (``arena: error: ...``) or from the signal that ended it. The whole
output stays in the runner's log file.
"""

from __future__ import annotations

import signal
from typing import Final

ERROR_PREFIX: Final = "arena: error: "
"""How the CLI starts its one-line error (arena.cli)."""
KEPT: Final = "finished games are kept; resume to play the rest"


def runner_outcome(output: str, exit_code: int | None) -> str | None:
    """One line on how a runner with *output* and *exit_code* ended; ``None`` while it
    runs (*exit_code* ``None``) or when it ended cleanly (``0``)."""
    if exit_code is None or exit_code == 0:
        return None
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        return f"The runner was stopped ({name}): {KEPT}."
    errors = [
        line.rsplit("\r", 1)[-1].removeprefix(ERROR_PREFIX).strip()
        for line in output.splitlines()
        if line.rsplit("\r", 1)[-1].startswith(ERROR_PREFIX)
    ]
    reason = errors[-1] if errors else f"it exited with status {exit_code}"
    return f"The runner stopped: {reason}; {KEPT}."
