"""``arena analyse BOT --tournament NAME``: a bot's duplicate analysis, as text or JSON.

The twin of the dashboard's Analysis page: travellers (every result on the same cards in
the same seat), the bot's biggest losses and gains against the field, where its games part
from the field's, and its measures by contract and decision kind (docs/analysis.md).
Records are read as ``--user`` may read them, and games whose cards are still held back
(a running tournament with secret deals) are left out.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import click
from sqlalchemy.engine import Engine

from arena import storage
from arena.analysis import Analysis, analyse, to_json
from arena.cli.storage_options import db_options, open_engine
from arena.cli.users import acting_user, user_option
from arena.storage.database import StorageError
from arena.storage.privacy import Viewer
from arena.storage.tournament_overview import TournamentInfo
from arena.storage.travellers import HeldBackRule, duplicate_games
from arena.terminal import safe_text
from arena.tournament.held_back import DealFacts, held_back

SWINGS_SHOWN = 5
"""Losses and gains listed in the text output (the JSON has them all)."""


@click.command("analyse")
@click.argument("bot")
@click.option("--tournament", "tournament", required=True, metavar="NAME",
              help="The tournament (a duplicate format: round robin, ladder, version test).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (docs/analysis.md).")
@user_option
@db_options
def analyse_command(
    bot: str,
    tournament: str,
    as_json: bool,
    user: str | None,
    db: str | None,
    data: Path | None,
) -> None:
    """Duplicate analysis of BOT in tournament NAME: each board and seat's traveller (every
    bot that held the same cards in the same seat, with its score, tricks and contracts),
    BOT's biggest losses and gains against them, the first step where its games part from
    theirs, and its results by contract and by decision kind against the field.

    Games of a running tournament with secret deals whose other seatings are not all played
    yet are left out (their cards are still secret); records are read as --user may.
    """
    engine = open_engine(db, data)
    viewer = Viewer.of(acting_user(engine, user))
    try:
        gathered = duplicate_games(engine, tournament, bot, viewer, _held_back_rule(engine))
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None
    if not gathered.games or not any(
        v in g.seats for g in gathered.games for v in gathered.versions
    ):
        held = f" ({gathered.held_back} held back until their boards are played)"
        raise click.ClickException(
            f"no games of bot {gathered.bot!r} in tournament {gathered.tournament.name!r} "
            f"to analyse{held if gathered.held_back else ''}"
        )
    result = analyse(
        gathered.games,
        gathered.versions,
        bot=gathered.bot,
        tournament=gathered.tournament.name,
        held_back=gathered.held_back,
    )
    if as_json:
        click.echo(json.dumps(to_json(result), indent=2, sort_keys=True))
    else:
        click.echo(analysis_text(result))


def _held_back_rule(engine: Engine) -> HeldBackRule:
    """The held-back rule of :mod:`arena.tournament.held_back`, counting stored games once
    per deal group."""

    @cache
    def stored_between(tournament_id: int, start: int, stop: int) -> int:
        return storage.games_in_range(engine, tournament_id, start, stop)

    def rule(tournament: TournamentInfo, schedule_index: int) -> bool:
        facts = DealFacts.of(tournament)
        return held_back(facts, schedule_index, stored_between) is not None

    return rule


def _safe(text: str) -> str:
    """*text* on one line with its terminal controls shown as escapes."""
    return safe_text(" ".join(text.splitlines()))


def _signed(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def analysis_text(result: Analysis) -> str:
    """The readable report; every text a bot or user chose is made terminal-safe."""
    lines = [
        f"Duplicate analysis of {_safe(result.bot)} in {_safe(result.tournament)}: "
        f"{sum(len(t.mine) for t in result.travellers)} game seat(s) on "
        f"{len(result.travellers)} traveller(s)"
        + (f"; {result.held_back} game(s) held back" if result.held_back else ""),
        "",
        "Travellers (the same cards in the same seat; * = this bot):",
    ]
    for t in result.travellers:
        lines.append(
            f"  board {t.board_index} seat {t.seat} (tables "
            f"{', '.join(str(x) for x in sorted({r.game.table_index for r in t.rows}))}): "
            f"field mean score {_signed(t.field_mean())}"
        )
        for row in t.rows:
            mark = "*" if row.mine else " "
            contracts = "/".join(str(c) for c in row.contracts)
            tricks = "/".join(str(x) for x in row.tricks)
            lines.append(
                f"   {mark} game {row.game.game_id:<6} table {row.game.table_index} "
                f"{_safe(row.player):<24} score {row.score:+d}"
                f"  contracts {contracts}  tricks {tricks}"
            )
    losses = [s for s in result.swings if s.swing < 0][:SWINGS_SHOWN]
    gains = [s for s in reversed(result.swings) if s.swing > 0][:SWINGS_SHOWN]
    for title, shown in (("Biggest losses", losses), ("Biggest gains", gains)):
        lines += ["", f"{title} against the field (score minus the field's mean):"]
        lines += [
            f"  {s.swing:+.2f}  game {s.row.game.game_id} (board {s.traveller.board_index}, "
            f"seat {s.traveller.seat}): {s.row.score:+d} vs {s.field_mean:+.2f}"
            for s in shown
        ] or ["  none"]
    lines += ["", "By contract (delta = tricks - contract, same hands as the field):"]
    lines += [
        f"  {c.contract}: {c.hands} hand(s), mean delta {_signed(c.mean_delta)}, "
        f"field {_signed(c.field_mean_delta)}, edge {_signed(c.edge)}"
        for c in result.contracts
    ]
    lines += ["", "By decision kind (identical positions as a field game):"]
    lines += [
        f"  {k.kind}: agreed {k.agreed}, differed {k.differed} "
        f"(agreement {_percent(k.agreement)}), hand swing when differed "
        f"{_signed(k.mean_hand_swing)}"
        for k in result.kinds
    ]
    lines += ["", "First differences (this bot's game vs another's):"]
    for p in result.pairs:
        d = p.difference
        where = (
            "identical games"
            if d is None
            else f"step {d.index} (hand {d.hand}, {d.kind}, seat {d.seat}"
            f"{', this seat' if p.differed_by_seat else ''}): {_safe(d.first)} | {_safe(d.second)}"
        )
        lines.append(
            f"  game {p.mine.game.game_id} vs {p.other.game.game_id} ({_safe(p.other.player)}): {where}"
        )
    return "\n".join(lines)


__all__ = ["analyse_command", "analysis_text"]
