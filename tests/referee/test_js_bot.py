"""The JavaScript sample bot (sample_bots/js_random_bot) against the real referee.

The bot is written from protos/arena/v1/arena.proto and docs/protocol.md alone; these tests
show that it builds from its own bot.toml and plays whole matches without a fault.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from arena.game import PRESETS
from arena.game.record import replay_record
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import MatchConfig, play_match
from tests.js_bot_support import JS_BOT, built_js_bot
from tests.oracle.rules_oracle import check_record

ROOT = Path(__file__).resolve().parents[2]
RANDOM = ROOT / "sample_bots" / "random_bot"
JS_LABEL = "js_random_bot@1.0.0"


def test_proto_copy_is_identical() -> None:
    """The bot directory is self-contained, so it carries its own copy of the proto."""
    copy = JS_BOT / "proto" / "arena" / "v1" / "arena.proto"
    original = ROOT / "protos" / "arena" / "v1" / "arena.proto"
    assert copy.read_bytes() == original.read_bytes(), (
        f"{copy.relative_to(ROOT)} differs from {original.relative_to(ROOT)}: copy it again"
    )


def test_manifest() -> None:
    manifest = load_manifest(JS_BOT)
    assert (manifest.name, manifest.version, manifest.language) == (
        "js_random_bot",
        "1.0.0",
        "javascript",
    )
    assert manifest.run == ("node", "bot.js")
    assert manifest.build is not None and manifest.build[:2] == ("npm", "ci")


@pytest.fixture(scope="module")
def js_bot() -> BotManifest:
    """The JS bot's manifest, built with its own build command if node_modules is missing."""
    return built_js_bot()


def _play(js_bot: BotManifest, preset: str, games: int, seed: int) -> list[dict[str, Any]]:
    random_bot = load_manifest(RANDOM)
    config = MatchConfig(PRESETS[preset], games=games, seed=seed)
    result = asyncio.run(play_match([js_bot, random_bot, js_bot], config))
    assert len(result.records) == games
    assert [s.label for s in result.stats] == [JS_LABEL, "random_bot@1.0.0", JS_LABEL]
    assert [s.faults for s in result.stats] == [0, 0, 0]
    return result.records


@pytest.mark.parametrize(("preset", "games"), [("classic", 2), ("catalan-plus-minus", 1)])
def test_js_bot_plays_a_match(js_bot: BotManifest, preset: str, games: int) -> None:
    records = _play(js_bot, preset, games, seed=5)
    for record in records:
        assert record["faults"] == []
        assert record["ruleset"] == preset
        assert record["players"] == [JS_LABEL, "random_bot@1.0.0", JS_LABEL]
        result = record["result"]
        assert result["winners"] and len(result["scores"]) == 3
        assert result["hands_played"] == len(record["hands"]) >= 1
        for seat in (0, 1, 2):  # every seat, the JS ones included, was timed by the referee
            assert record["timings"]["decision_ms"][seat], f"seat {seat} made no timed decision"
        replay_record(record)
        assert check_record(record) == []


def test_js_bot_is_reproducible(js_bot: BotManifest) -> None:
    """Same --seed, game number and seat: the same decisions, so the same game."""
    first, second = (_play(js_bot, "classic", 1, seed=9) for _ in range(2))
    assert first[0]["hands"] == second[0]["hands"]
    assert first[0]["result"] == second[0]["result"]
