"""Fixtures of the chaos tests: a PostgreSQL server of their own that they may kill, with
three sample bots submitted once (each test plays its own small tournament there)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli import main
from tests.chaos.killable_postgres import KillablePostgres, killable_postgres
from tests.conftest import postgres_unavailable

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
BOTS = ("random_bot", "greedy_bot", "heuristic_bot")
TIME_CONTROL = "decision=5000,bank=60000,grace=500,startup=30000"
"""Generous: a timeout under CI load would change a record legitimately."""


@dataclass
class ChaosArena:
    """A killable server with an arena database on it, bots submitted."""

    server: KillablePostgres
    url: str
    data: Path

    @property
    def common(self) -> list[str]:
        return ["--db", self.url, "--data", str(self.data)]

    def create(self, name: str, boards: int = 1) -> None:
        """A round robin of the three bots: 6 games a board."""
        assert main(["tournament", "create", name, "--bots", ",".join(BOTS), "--boards",
                     str(boards), "--seed", "3", "--time-control", TIME_CONTROL,
                     *self.common]) == 0  # fmt: skip


@pytest.fixture(scope="module")
def chaos_arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChaosArena]:
    try:
        context = killable_postgres()
        server = context.__enter__()
    except Exception as exc:
        postgres_unavailable(f"a killable server did not start: {exc}")
        raise  # not reached: it skips or fails
    try:
        arena = ChaosArena(server, server.create_database("arena"), tmp_path_factory.mktemp("data"))
        for bot in BOTS:
            assert main(["bot", "submit", str(SAMPLES / bot), *arena.common]) == 0
        yield arena
    finally:
        context.__exit__(None, None, None)
