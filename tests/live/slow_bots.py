"""A slow bot for the live tests: a game must last long enough to be followed."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SLEEP_S = 0.25
"""The slow bot's pause per decision: a game lasts long enough to be followed."""


def slow_bot(tmp_path: Path, sleep_s: float = SLEEP_S, slow_plays: int | None = None) -> Path:
    """The random sample bot, renamed ``slow_bot``, pausing *sleep_s* before each card, or
    only before the first *slow_plays* cards its process plays (a process serves every
    later game of its seating: those then run at the sample bots' speed, so a test that
    needs only one game slow enough to be followed does not wait through all of them)."""
    folder = tmp_path / "slow_bot"
    shutil.copytree(ROOT / "sample_bots" / "random_bot", folder)
    manifest = (folder / "bot.toml").read_text().replace('"random_bot"', '"slow_bot"')
    (folder / "bot.toml").write_text(manifest)
    code = (folder / "bot.py").read_text().replace('"random_bot"', '"slow_bot"')
    code = code.replace("import random\n", "import random\nimport time\n")
    if slow_plays is None:
        pause = f"        time.sleep({sleep_s})\n"
    else:
        pause = (
            f"        left = getattr(self, 'slow_plays_left', {slow_plays})\n"
            "        if left > 0:\n"
            "            self.slow_plays_left = left - 1\n"
            f"            time.sleep({sleep_s})\n"
        )
    play = "    def play(self, obs: Turn) -> Play:\n"
    assert play in code, "the random bot's play() moved: the slow bot would not be slow"
    code = code.replace(play, play + pause)
    (folder / "bot.py").write_text(code)
    return folder
