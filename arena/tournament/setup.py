"""Creating a tournament from bot names and settings: the checks shared by the CLI and the
dashboard, so both refuse the same things with the same words.

Bot names are resolved as storage resolves them (:func:`arena.storage.bots.resolve_bot_name`):
``--bots GREEDY_BOT`` means the stored ``greedy_bot``, and naming one bot twice under
look-alike spellings (``Greedy_Bot,greedy_bot,greedy-bot``) is refused like naming it
twice exactly.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from arena import storage
from arena.game.rules import RuleSetError, get_ruleset
from arena.referee.timecontrol import TimeControl
from arena.storage.bots import resolve_bot_name
from arena.storage.models import (
    BOARD_DEALS,
    BOARD_SIZE,
    TABLE_DEALS,
    BotVersion,
    LadderSettings,
    Tournament,
)
from arena.storage.users import Actor, AmbiguousName, require_role
from arena.tournament.deals import deal_secret
from arena.tournament.formats import Ladder, TournamentFormat, get_format
from arena.tournament.matchmaker import DEFAULT_CONFIDENCE, DEFAULT_MIN_GAMES

DEFAULT_TIME_CONTROL = str(TimeControl())


class TournamentSetupError(ValueError):
    """A tournament cannot be created as asked; the message is one line."""

    def __init__(self, message: str, param: str = "--bots") -> None:
        super().__init__(message)
        self.param = param
        """The command-line option at fault."""


def check_may_run(by: Actor) -> None:
    """Refuse to start, resume or stop a tournament for anyone but an organiser (the CLI's
    ``tournament run`` and the dashboard's Start, Resume and Stop all call this).

    :raises arena.storage.PermissionDenied: for a participant.
    """
    require_role(by, "organiser", "running or stopping a tournament")


def create_tournament(  # noqa: PLR0913 - one keyword per tournament setting
    engine: Engine,
    *,
    by: Actor,
    name: str,
    ruleset: str,
    bots: Sequence[str],
    boards: int,
    seed: int | None = None,
    format_name: str = "round_robin",
    rating_mode: str = "board",
    time_control: str = DEFAULT_TIME_CONTROL,
    ladder: LadderOptions | None = None,
) -> tuple[Tournament, str]:
    """Create tournament *name* between the latest versions of *bots* for organiser *by*;
    the tournament and a one-line description of it.

    Its deals come from a fresh secret, or from *seed* for a reproducible run, whose deals
    anyone knowing the seed can predict (the description says so). A round robin deals
    each table's boards from their own keys (docs/scaling.md says why). A ``ladder`` plays one
    board per match (whatever *boards* says) and stops as *ladder* says (default
    :class:`LadderOptions`); other formats take no *ladder*.

    :raises arena.storage.PermissionDenied: unless *by* is an organiser.
    :raises TournamentSetupError: for an invalid setting, an unknown bot, a name that looks
        like several bots' names, or one bot named more than once (in any spelling).
    :raises arena.storage.StorageError: if the name is taken or the database fails.
    """
    require_role(by, "organiser", "creating a tournament")
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
    except (RuleSetError, ValueError) as exc:
        raise TournamentSetupError(str(exc)) from None
    ladder, total = _schedule_size(fmt, len(bots), boards, ladder)
    if ladder is not None:
        boards = 1
    try:
        secret, predictable = deal_secret(seed)
    except ValueError as exc:
        raise TournamentSetupError(str(exc), "--seed") from None
    versions = _latest_versions(engine, bots)
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
        ladder=None if ladder is None else ladder.settings(),
        deal_scope=BOARD_DEALS if ladder is not None else TABLE_DEALS,
    )
    deals = f"deals are predictable (--seed {seed})" if predictable else "secret deals"
    if ladder is not None:
        return tournament, f"created ladder {name!r}: {len(bots)} bots, {ladder}, {deals}"
    tables = fmt.table_count(len(bots))
    description = (
        f"created tournament {name!r}: {len(bots)} bots, {tables} table(s) x {boards} "
        f"board(s) x 6 seatings = {total} games of {rules.name}, {deals}"
    )
    return tournament, description


def _latest_versions(engine: Engine, bots: Sequence[str]) -> list[BotVersion]:
    """The latest version of each bot *bots* names, in order.

    :raises TournamentSetupError: for an unknown bot, a name that looks like several bots'
        names, or one bot named more than once.
    """
    spellings: dict[str, list[str]] = {}
    for bot in bots:
        try:
            stored = resolve_bot_name(engine, bot)
        except AmbiguousName as exc:
            raise TournamentSetupError(str(exc)) from None
        if stored is None:
            raise TournamentSetupError(f"no bot named {bot!r} (submit it first)")
        spellings.setdefault(stored, []).append(bot)
    for stored, given in spellings.items():
        if len(given) > 1:
            raise TournamentSetupError(
                f"bot {stored!r} is named more than once: {', '.join(map(repr, given))}"
            )
    versions = []
    for stored in spellings:
        version = storage.latest_version(engine, stored, exact=True)
        if version is None:  # a bot is stored with its first version, in one transaction
            raise TournamentSetupError(f"bot {stored!r} has no version (submit it first)")
        versions.append(version)
    return versions


def _schedule_size(
    fmt: TournamentFormat, bots: int, boards: int, ladder: LadderOptions | None
) -> tuple[LadderOptions | None, int]:
    """The checked ladder options (``None`` for other formats) and the games scheduled
    at creation (a ladder's grow by a board as each match is chosen).

    :raises TournamentSetupError: for a setting the format refuses.
    """
    try:
        if isinstance(fmt, Ladder):
            if ladder is None or not ladder.open:  # an open ladder fills by itself
                fmt.check_entrants(bots)
        else:
            fmt.table_count(bots)
    except ValueError as exc:
        raise TournamentSetupError(str(exc)) from None
    if isinstance(fmt, Ladder):
        ladder = ladder or LadderOptions()
        ladder.check()
        return ladder, 0
    if ladder is not None:
        raise TournamentSetupError(
            "--games, --confidence, --min-games and --open are for --format ladder", "--format"
        )
    try:
        return None, fmt.games_total(bots, boards)
    except ValueError as exc:
        raise TournamentSetupError(str(exc), "--boards") from None


@dataclass(frozen=True, slots=True)
class LadderOptions:
    """When a ladder stops: its game budget spent, or its order sure enough."""

    games: int = 0
    """Games it may play in all (whole matches of 6); 0: no budget."""
    confidence: float = DEFAULT_CONFIDENCE
    """It stops once every bot is above the next with at least this probability ..."""
    min_games: int = DEFAULT_MIN_GAMES
    """... and every bot has played this many rated games."""
    open: bool = False
    """New versions enter it by themselves once stored (an open ladder may start empty)."""
    max_versions_per_day: int | None = None
    """While it is open, a participant's versions in 24 hours; ``None``: no quota."""

    def check(self) -> None:
        """:raises TournamentSetupError: for a setting out of range."""
        if self.games != 0 and self.games < BOARD_SIZE:
            raise TournamentSetupError(
                f"--games must be 0 (no budget) or at least {BOARD_SIZE} (one match)", "--games"
            )
        if not 0.5 < self.confidence < 1.0:
            raise TournamentSetupError(
                f"--confidence must be between 0.5 and 1 (exclusive), not {self.confidence}",
                "--confidence",
            )
        if self.min_games < 0:
            raise TournamentSetupError("--min-games must not be negative", "--min-games")
        if self.max_versions_per_day is not None and self.max_versions_per_day < 1:
            raise TournamentSetupError(
                "--max-versions-per-day must be at least 1", "--max-versions-per-day"
            )

    def settings(self) -> LadderSettings:
        """The row that stores them."""
        return LadderSettings(
            games_budget=self.games,
            confidence=self.confidence,
            min_games=self.min_games,
            open=self.open,
            max_versions_per_day=self.max_versions_per_day,
        )

    def __str__(self) -> str:
        budget = f"up to {self.games} games" if self.games else "no game budget"
        opened = ""
        if self.open:
            opened = ", open: new versions enter by themselves"
            if self.max_versions_per_day is not None:
                opened += f" (at most {self.max_versions_per_day} a day per participant)"
        return (
            f"{budget}, stops when every bot is above the next with P >= {self.confidence:g} "
            f"after {self.min_games}+ rated games each{opened}"
        )
