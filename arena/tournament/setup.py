"""Creating a tournament from bot names and settings: the checks shared by the CLI and the
dashboard, so both refuse the same things with the same words."""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy.engine import Engine

from arena import storage
from arena.game.rules import RuleSetError, get_ruleset
from arena.referee.timecontrol import TimeControl
from arena.storage.models import Tournament
from arena.tournament.deals import deal_secret
from arena.tournament.formats import get_format

DEFAULT_TIME_CONTROL = str(TimeControl())


class TournamentSetupError(ValueError):
    """A tournament cannot be created as asked; the message is one line."""

    def __init__(self, message: str, param: str = "--bots") -> None:
        super().__init__(message)
        self.param = param
        """The command-line option at fault."""


def create_tournament(  # noqa: PLR0913 - one keyword per tournament setting
    engine: Engine,
    *,
    name: str,
    ruleset: str,
    bots: Sequence[str],
    boards: int,
    seed: int | None = None,
    format_name: str = "round_robin",
    rating_mode: str = "board",
    time_control: str = DEFAULT_TIME_CONTROL,
) -> tuple[Tournament, str]:
    """Create tournament *name* between the latest versions of *bots*; the tournament and a
    one-line description of it.

    Its deals come from a fresh secret, or from *seed* for a reproducible run, whose deals
    anyone knowing the seed can predict (the description says so).

    :raises TournamentSetupError: for an invalid setting or an unknown bot.
    :raises arena.storage.StorageError: if the name is taken or the database fails.
    """
    name = name.strip()
    if not name:
        raise TournamentSetupError("give the tournament a name")
    if boards < 1:
        raise TournamentSetupError("a tournament needs at least one board")
    if len(set(bots)) != len(bots):
        raise TournamentSetupError("a bot is listed twice")
    try:
        rules = get_ruleset(ruleset)
        control = TimeControl.parse(time_control)
        fmt = get_format(format_name)
        fmt.table_count(len(bots))
    except (RuleSetError, ValueError) as exc:
        raise TournamentSetupError(str(exc)) from None
    try:
        total = fmt.games_total(len(bots), boards)
    except ValueError as exc:
        raise TournamentSetupError(str(exc), "--boards") from None
    try:
        secret, predictable = deal_secret(seed)
    except ValueError as exc:
        raise TournamentSetupError(str(exc), "--seed") from None
    versions = []
    for bot in bots:
        version = storage.latest_version(engine, bot)
        if version is None:
            raise TournamentSetupError(f"no bot named {bot!r} (submit it first)")
        versions.append(version)
    tournament = storage.create_tournament(
        engine,
        name=name,
        ruleset=rules.name,
        rules_json=json.dumps(rules.to_json()),
        time_control=str(control),
        boards=boards,
        seed=seed,
        rating_mode=rating_mode,
        entries=[storage.row_id(v) for v in versions],
        games_total=total,
        format=format_name,
        deal_secret=secret,
    )
    tables = fmt.table_count(len(bots))
    deals = f"deals are predictable (--seed {seed})" if predictable else "secret deals"
    description = (
        f"created tournament {name!r}: {len(bots)} bots, {tables} table(s) x {boards} "
        f"board(s) x 6 seatings = {total} games of {rules.name}, {deals}"
    )
    return tournament, description
