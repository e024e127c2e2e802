"""docs/bots.md and docs/protocol.md say what a bot author needs, complete and true:

* section 6 of the bots guide names every field a bot reads (no "..." where a list
  stops), taken from the SDK's own dataclasses and enums, so a new field is a failing
  test until it is documented;
* its example bot runs, in process, without a fault;
* the protocol says a bot ships its own ``.proto`` and that ``npm ci`` needs a
  ``package-lock.json``, and the JavaScript sample bot does both.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from arena.game import GameResult, Observation, Request, Trump
from arena.game.observation import HandSummary, LegView, ShowView, TrickView
from arena.protocol.convert import GameEnd, GameStart, HandEnd
from arena.sdk import Clock, play_locally

ROOT = Path(__file__).resolve().parent.parent
BOTS_GUIDE = ROOT / "docs" / "bots.md"
PROTOCOL = ROOT / "docs" / "protocol.md"


def section(text: str, start: str, end: str) -> str:
    """The part of *text* from heading *start* up to heading *end*."""
    return text[text.index(start) : text.index(end)]


def sdk_section() -> str:
    return section(BOTS_GUIDE.read_text("utf-8"), "## 6. The Python SDK", "## 7. Checking")


def missing(text: str, names: list[str]) -> list[str]:
    """The *names* that *text* never shows as code (`` `name` `` or ``x.name``)."""
    return [n for n in names if not re.search(rf"`(?:[\w.]*\.)?{re.escape(n)}[`(]", text)]


def placeholders(text: str) -> list[str]:
    """Lists that stop at "..." in *text*, outside code blocks (where ``...`` is code)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return re.findall(r".{0,30}\.\.\..{0,10}", prose)


def test_the_sdk_section_names_every_field_a_bot_reads() -> None:
    text = sdk_section()
    documented = {
        Observation: [f.name for f in fields(Observation)],
        Request: [f.name for f in fields(Request)],
        TrickView: [f.name for f in fields(TrickView)],
        LegView: [f.name for f in fields(LegView)],
        ShowView: [f.name for f in fields(ShowView)],
        HandSummary: [f.name for f in fields(HandSummary)],
        GameResult: [f.name for f in fields(GameResult)],
        GameStart: [f.name for f in fields(GameStart)],
        HandEnd: [f.name for f in fields(HandEnd)],
        GameEnd: [f.name for f in fields(GameEnd)],
        Clock: [f.name for f in fields(Clock)],
        Trump: [member.name for member in Trump],
    }
    for kind, names in documented.items():
        assert missing(text, names) == [], kind.__name__
    # Control: a name the guide does not have is reported.
    assert missing(text, ["tricks_won", "no_such_field"]) == ["no_such_field"]


def test_no_list_in_the_sdk_section_stops_at_an_ellipsis() -> None:
    assert placeholders(sdk_section()) == []
    # Control: the list the guide used to leave open is found.
    assert placeholders("`obs.trump`, `obs.tricks`, ...\n") == ["`obs.trump`, `obs.tricks`, ..."]


def test_the_guides_example_bot_plays_without_a_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first Python block of section 6, saved as a bot.py, as the guide says."""
    code = re.search(r"```python\n(.*?)```", sdk_section(), flags=re.DOTALL)
    assert code is not None
    (tmp_path / "bot.py").write_text(code.group(1), "utf-8")
    spec = importlib.util.spec_from_file_location("guide_example_bot", tmp_path / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "guide_example_bot", module)
    spec.loader.exec_module(module)
    report = play_locally(module.MyBot(), ["greedy", "random"], games=3)
    assert report.ok, report.faults
    assert len(report.games) == 3


def test_the_protocol_says_a_bot_ships_its_proto_and_npm_needs_a_lockfile() -> None:
    text = re.sub(r"\s+", " ", PROTOCOL.read_text("utf-8"))
    assert "A bot ships its own copy of the `.proto`." in text
    assert "`npm ci` needs a `package-lock.json`" in text
    # And the JavaScript sample bot does as it says: its copy is the arena's, and it has
    # the lockfile its `npm ci` build step needs.
    sample = ROOT / "sample_bots" / "js_random_bot"
    assert "npm ci" in (sample / "bot.toml").read_text("utf-8")
    assert (sample / "package-lock.json").is_file()
    copy = (sample / "proto" / "arena" / "v1" / "arena.proto").read_bytes()
    assert copy == (ROOT / "protos" / "arena" / "v1" / "arena.proto").read_bytes()
