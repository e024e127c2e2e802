"""The whole duplicate analysis of one bot, and its stable JSON form (``arena analyse
--json``; docs/analysis.md lists the fields)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, Final

from arena.analysis.difference import Difference
from arena.analysis.games import PlayedGame
from arena.analysis.measures import ContractLine, KindLine, Pair, by_contract, by_kind, pairs
from arena.analysis.travellers import Swing, Traveller, TravellerRow, swings, travellers
from arena.replay.steps import RecordError, Replay, build_replay

SCHEMA: Final = "arena952.analysis/1"


@dataclass(frozen=True, slots=True)
class Analysis:
    """A bot's travellers, swings, and measures against the field."""

    bot: str
    tournament: str
    travellers: tuple[Traveller, ...]
    swings: tuple[Swing, ...]
    """Biggest loss first."""
    contracts: tuple[ContractLine, ...]
    kinds: tuple[KindLine, ...]
    pairs: tuple[Pair, ...]
    unreplayable: tuple[int, ...]
    """Game ids whose records do not replay (left out of the pairs)."""
    held_back: int = 0
    """Games not analysed because their deal group is still being played."""


def analyse(
    games: Iterable[PlayedGame],
    versions: Collection[int],
    *,
    bot: str,
    tournament: str,
    held_back: int = 0,
) -> Analysis:
    """The analysis of the bot whose versions are *versions*, over *games* (every game of
    the tournament that may be used: the caller leaves held-back ones out)."""
    found = travellers(games, versions)
    replays: dict[int, Replay | None] = {}
    bad: list[int] = []

    def replay_of(row: TravellerRow) -> Replay | None:
        game = row.game
        if game.game_id not in replays:
            try:
                replays[game.game_id] = build_replay(game.record, game=str(game.game_id))
            except (RecordError, KeyError, TypeError, ValueError):
                replays[game.game_id] = None
                bad.append(game.game_id)
        return replays[game.game_id]

    found_pairs = pairs(found, replay_of)
    return Analysis(
        bot=bot,
        tournament=tournament,
        travellers=tuple(found),
        swings=tuple(swings(found)),
        contracts=tuple(by_contract(found)),
        kinds=tuple(by_kind(found_pairs)),
        pairs=tuple(found_pairs),
        unreplayable=tuple(sorted(bad)),
        held_back=held_back,
    )


def _row(row: TravellerRow, field_mean: float | None) -> dict[str, Any]:
    return {
        "game_id": row.game.game_id,
        "schedule_index": row.game.schedule_index,
        "table": row.game.table_index,
        "seating": row.game.seating_index,
        "player": row.player,
        "mine": row.mine,
        "score": row.score,
        "won": row.won,
        "contracts": list(row.contracts),
        "tricks": list(row.tricks),
        "swing": None if field_mean is None or not row.mine else row.score - field_mean,
    }


def _difference(d: Difference | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "step": d.index,
        "hand": d.hand,
        "seat": d.seat,
        "kind": d.kind,
        "decision": d.decision,
        "mine": d.first,
        "other": d.second,
    }


def to_json(analysis: Analysis) -> dict[str, Any]:
    """The analysis as plain JSON values, field names fixed by docs/analysis.md."""
    return {
        "schema": SCHEMA,
        "bot": analysis.bot,
        "tournament": analysis.tournament,
        "held_back_games": analysis.held_back,
        "unreplayable_games": list(analysis.unreplayable),
        "travellers": [
            {
                "board": t.board_index,
                "table": t.table_index,
                "seat": t.seat,
                "deal_key": str(t.deal[0]),
                "first_dealer": t.deal[1],
                "field_mean": t.field_mean(),
                "rows": [_row(r, t.field_mean()) for r in t.rows],
            }
            for t in analysis.travellers
        ],
        "swings": [
            {
                "game_id": s.row.game.game_id,
                "board": s.traveller.board_index,
                "seat": s.traveller.seat,
                "score": s.row.score,
                "field_mean": s.field_mean,
                "swing": s.swing,
            }
            for s in analysis.swings
        ],
        "by_contract": [
            {
                "contract": c.contract,
                "hands": c.hands,
                "mean_delta": c.mean_delta,
                "field_mean_delta": c.field_mean_delta,
                "edge": c.edge,
            }
            for c in analysis.contracts
        ],
        "by_decision": [
            {
                "kind": k.kind,
                "agreed": k.agreed,
                "differed": k.differed,
                "agreement": k.agreement,
                "mean_hand_swing": k.mean_hand_swing,
            }
            for k in analysis.kinds
        ],
        "pairs": [
            {
                "board": p.traveller.board_index,
                "seat": p.traveller.seat,
                "game_id": p.mine.game.game_id,
                "other_game_id": p.other.game.game_id,
                "other_player": p.other.player,
                "first_difference": _difference(p.difference),
                "by_seat": p.differed_by_seat,
            }
            for p in analysis.pairs
        ],
    }


__all__ = ["SCHEMA", "Analysis", "analyse", "to_json"]
