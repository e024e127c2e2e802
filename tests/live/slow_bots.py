"""A slow bot for the live tests: a game must last long enough to be followed."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SLEEP_S = 0.25
"""The slow bot's pause per decision: a game lasts long enough to be followed."""


def slow_bot(tmp_path: Path, sleep_s: float = SLEEP_S) -> Path:
    """The random sample bot, renamed ``slow_bot``, pausing *sleep_s* before each card."""
    folder = tmp_path / "slow_bot"
    shutil.copytree(ROOT / "sample_bots" / "random_bot", folder)
    manifest = (folder / "bot.toml").read_text().replace('"random_bot"', '"slow_bot"')
    (folder / "bot.toml").write_text(manifest)
    code = (folder / "bot.py").read_text().replace('"random_bot"', '"slow_bot"')
    code = code.replace("import random\n", "import random\nimport time\n")
    code = code.replace(
        "    def play(self, obs: Turn) -> Play:\n",
        f"    def play(self, obs: Turn) -> Play:\n        time.sleep({sleep_s})\n",
    )
    (folder / "bot.py").write_text(code)
    return folder
