"""Version tests: is a candidate bot better than its baseline? (``arena bot compare``)

A version test is stored as a tournament of format ``version_test`` whose entrants are, in
order, the candidate, the baseline and two opponents X and Y. Board ``b`` is two tables on
the same deals (one deal key per board, from the tournament's secret, like every
tournament's): the candidate with X and Y, then the baseline with X and Y, each under all
6 seatings, so 12 games with schedule indexes ``12 b`` to ``12 b + 11``. Each table's 6
games are consecutive, so the ordinary per-board rating (``rating_mode = board``) rates each
table's board once, and every game is stored, rated and replayable like any tournament's.

Board ``b`` gives one number: the candidate's mean score per game minus the baseline's.
The same deals and opponents cancel most of the luck of the cards, which is what makes a
difference of a few points visible in tens of boards. The numbers feed the sequential test
of :mod:`arena.ratings.sprt`, evaluated board by board in board order; the run stops at the
first decision or after ``max_boards``.

Games are played by the ordinary executor (real bot processes, never two games of one deal
at once), a batch of boards at a time (as many as it has workers, since one board's games
cannot run side by side); a batch's boards after the deciding one are kept but not
counted: the verdict is always that of the shortest prefix of boards that decides, so it
does not depend on the number of workers.

The test's own settings (candidate, baseline, opponents, margin, alpha, beta, minimum
boards) are stored with its tournament (table ``version_test``) before the first game, so
``arena tournament run NAME`` resumes it and every dashboard on the database redraws its
progress from the stored games.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from sqlalchemy.engine import Engine

from arena import storage
from arena.game.rules import RuleSet, RuleSetError, get_ruleset
from arena.ratings.sprt import SprtSettings, SprtState, Verdict, run_sequentially
from arena.referee.timecontrol import TimeControl
from arena.storage.database import StorageError
from arena.storage.models import BotVersion, Tournament
from arena.storage.tournaments import stored_rules
from arena.storage.version_tests import save_version_test, version_test_spec
from arena.tournament.deals import board_seeds, deal_secret
from arena.tournament.executor import Executor, ExecutorError, LocalProcessExecutor
from arena.tournament.formats import SEATINGS, ScheduledGame, board_games
from arena.tournament.jobs import GameJob
from arena.tournament.loop import RunFormat, RunProgress, game_job, play, store_game
from arena.tournament.outage import OutageWait

FORMAT: Final = "version_test"
"""The ``tournament.format`` of a version test."""
TABLES: Final = ((0, 2, 3), (1, 2, 3))
"""Entry positions at each of a board's two tables: the candidate's, then the baseline's."""
GAMES_PER_BOARD: Final = len(TABLES) * len(SEATINGS)
MAX_BOARDS: Final = 5000
"""The most boards one test may play (60,000 games: days of play)."""


class VersionTestError(ValueError):
    """A version test cannot be made as asked; the message is one line."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param
        """The command-line parameter at fault, if one is."""


@dataclass(frozen=True, slots=True)
class VersionTestSpec:
    """What a version test asks: who, against whom, and how sure it must be."""

    tournament_id: int
    tournament: str
    candidate: str
    """Labels (``name@version``) of the four versions, as entered."""
    baseline: str
    opponents: tuple[str, str]
    margin: float
    alpha: float
    beta: float
    min_boards: int
    max_boards: int

    @property
    def sprt(self) -> SprtSettings:
        """The sequential test's settings."""
        return SprtSettings(self.margin, self.alpha, self.beta, self.min_boards)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VersionTestSpec:
        """The spec from :meth:`to_json`.

        :raises KeyError, TypeError, ValueError: for a malformed dict.
        """
        fields = dict(data)
        first, second = fields["opponents"]
        fields["opponents"] = (str(first), str(second))
        spec = cls(**fields)
        SprtSettings(spec.margin, spec.alpha, spec.beta, spec.min_boards)  # or ValueError
        return spec


@dataclass(frozen=True, slots=True)
class VersionTestResult:
    """How a version test ended (or stands)."""

    spec: VersionTestSpec
    states: list[SprtState]
    """The test after each counted board; its last one is the verdict."""
    boards_stored: int
    """Complete boards stored, counted or not (more than counted when workers ran ahead)."""

    @property
    def final(self) -> SprtState:
        """The test's state after the last counted board."""
        return self.states[-1] if self.states else _before_any_board(self.spec.sprt)

    @property
    def verdict(self) -> Verdict:
        """The verdict (``undecided`` until a bound is crossed)."""
        return self.final.verdict


def _before_any_board(settings: SprtSettings) -> SprtState:
    nan = float("nan")
    return SprtState(0, 0.0, settings.lower, settings.upper, Verdict.UNDECIDED, nan, nan, nan)


# ------------------------------------------------------------------------ the schedule


def board_schedule(board: int, seed: int) -> list[ScheduledGame]:
    """The 12 games of board *board* with deal key *seed* (entrants as entry positions)."""
    return [
        game
        for table_index, table in enumerate(TABLES)
        for game in board_games(
            board * GAMES_PER_BOARD + table_index * len(SEATINGS), table_index, board, seed, table
        )
    ]


def board_differences(
    games: Sequence[storage.GameRow], candidate_id: int, baseline_id: int
) -> list[float]:
    """Per complete board, in board order up to the first incomplete one: the candidate's
    mean score per game minus the baseline's (points per game)."""
    sums: dict[int, list[float]] = {}
    counts: dict[int, int] = {}
    for game in games:
        board = game.schedule_index // GAMES_PER_BOARD
        totals = sums.setdefault(board, [0.0, 0.0])
        counts[board] = counts.get(board, 0) + 1
        for seat, bot in enumerate(game.seats):
            if bot == candidate_id:
                totals[0] += game.scores[seat]
            elif bot == baseline_id:
                totals[1] += game.scores[seat]
    differences: list[float] = []
    board = 0
    while counts.get(board) == GAMES_PER_BOARD:
        candidate, baseline = sums[board]
        differences.append((candidate - baseline) / len(SEATINGS))
        board += 1
    return differences


def complete_boards(games: Sequence[storage.GameRow]) -> int:
    """How many boards have all their games stored (in any order)."""
    counts: dict[int, int] = {}
    for game in games:
        board = game.schedule_index // GAMES_PER_BOARD
        counts[board] = counts.get(board, 0) + 1
    return sum(1 for count in counts.values() if count == GAMES_PER_BOARD)


# -------------------------------------------------------------------------- the spec


def save_spec(engine: Engine, spec: VersionTestSpec) -> None:
    """Store *spec* with its tournament (table ``version_test``).

    :raises arena.storage.StorageError: if the database fails.
    """
    save_version_test(engine, spec.tournament_id, json.dumps(spec.to_json(), sort_keys=True))


def load_spec(engine: Engine, tournament_id: int) -> VersionTestSpec | None:
    """The settings of version test *tournament_id*, or ``None`` if missing or unreadable.

    :raises arena.storage.StorageError: if the database fails.
    """
    text = version_test_spec(engine, tournament_id)
    if text is None:
        return None
    try:
        spec = VersionTestSpec.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError):
        return None
    return spec if spec.tournament_id == tournament_id else None


# ------------------------------------------------------------------------ creating one


def resolve_version(engine: Engine, text: str) -> BotVersion:
    """A bot version from ``NAME`` (its latest), ``NAME@VERSION`` (the latest of that
    version) or a full label such as ``NAME@VERSION+abcdef12``.

    :raises VersionTestError: if there is no such bot or version.
    """
    name, _, wanted = text.strip().partition("@")
    versions = storage.bot_versions(engine, name)
    if not versions:
        raise VersionTestError(f"no bot named {name!r} (submit it first)")
    if not wanted:
        return versions[-1]
    for version in reversed(versions):
        if version.label == text.strip() or version.version == wanted:
            return version
    known = ", ".join(v.label for v in versions)
    raise VersionTestError(f"bot {name!r} has no version {wanted!r}; it has: {known}")


def create_version_test(  # noqa: PLR0913 - one keyword per setting of the test
    engine: Engine,
    *,
    candidate: str,
    baseline: str,
    opponents: Sequence[str],
    sprt: SprtSettings,
    max_boards: int,
    ruleset: str = "classic",
    time_control: str = str(TimeControl()),
    name: str | None = None,
    seed: int | None = None,
) -> VersionTestSpec:
    """Store a new version test (a tournament and its settings file); its spec. Its deals
    come from a fresh secret, or from *seed* for a reproducible research run (predictable
    deals, as ``arena tournament create --seed``).

    :raises VersionTestError: for an invalid setting, an unknown bot, or the same version
        in two roles.
    :raises arena.storage.StorageError: if the name is taken or the database fails.
    :raises OSError: if the settings file cannot be written.
    """
    if len(opponents) != 2:
        raise VersionTestError("give exactly two opponents, e.g. --opponents X,Y", "--opponents")
    if not 1 <= max_boards <= MAX_BOARDS:
        raise VersionTestError(f"--max-boards must be 1 to {MAX_BOARDS}", "--max-boards")
    try:
        rules: RuleSet = get_ruleset(ruleset)
        control = TimeControl.parse(time_control)
    except (RuleSetError, ValueError) as exc:
        raise VersionTestError(str(exc)) from None
    versions = [resolve_version(engine, text) for text in (candidate, baseline, *opponents)]
    ids = [storage.row_id(v) for v in versions]
    if len(set(ids)) != len(ids):
        raise VersionTestError(
            "the candidate, the baseline and the two opponents must be four different bot "
            f"versions (got {', '.join(v.label for v in versions)})"
        )
    try:
        secret, _ = deal_secret(seed)
    except ValueError as exc:
        raise VersionTestError(str(exc), "--seed") from None
    if name is None:
        name = _free_name(engine, f"compare {versions[0].label} vs {versions[1].label}")
    tournament = storage.create_tournament(
        engine,
        name=name,
        ruleset=rules.name,
        rules_json=json.dumps(rules.to_json()),
        time_control=str(control),
        boards=max_boards,
        seed=seed,
        rating_mode="board",
        entries=ids,
        games_total=max_boards * GAMES_PER_BOARD,
        format=FORMAT,
        deal_secret=secret,
    )
    spec = VersionTestSpec(
        tournament_id=storage.row_id(tournament),
        tournament=tournament.name,
        candidate=versions[0].label,
        baseline=versions[1].label,
        opponents=(versions[2].label, versions[3].label),
        margin=sprt.margin,
        alpha=sprt.alpha,
        beta=sprt.beta,
        min_boards=sprt.min_boards,
        max_boards=max_boards,
    )
    save_spec(engine, spec)
    return spec


def _free_name(engine: Engine, base: str) -> str:
    """*base*, or *base* ``#2``, ``#3``, ... : the first name no tournament has.

    A bot version may hold characters a tournament name may not (``/``; see
    :data:`arena.storage.tournaments.TOURNAMENT_NAME`), and two long labels may exceed its
    length: such characters become ``_`` and the base is cut to leave room for ``#N``.
    """
    base = re.sub(r"[^A-Za-z0-9_.@#+,: -]", "_", base)[:100].rstrip(" ,")
    taken = {t.name for t in storage.list_tournaments(engine)}
    if base not in taken:
        return base
    number = 2
    while f"{base} #{number}" in taken:
        number += 1
    return f"{base} #{number}"


# ------------------------------------------------------------------------- running one


def result(engine: Engine, spec: VersionTestSpec) -> VersionTestResult:
    """The test as its stored games stand now (what the dashboard draws)."""
    games = storage.game_page(engine, spec.tournament_id, limit=spec.max_boards * GAMES_PER_BOARD)
    entrants = storage.entries(engine, spec.tournament_id)
    candidate, baseline = storage.row_id(entrants[0]), storage.row_id(entrants[1])
    differences = board_differences(games, candidate, baseline)
    return VersionTestResult(spec, run_sequentially(differences, spec.sprt), complete_boards(games))


class VersionTestRun(RunFormat[RunProgress]):
    """One run of a version test: rounds of boards, each looked at by the sequential test
    once it is played (see :func:`run_version_test`)."""

    kind = "version test"

    def __init__(
        self,
        engine: Engine,
        spec: VersionTestSpec,
        executor: Executor | None = None,
        on_board: Callable[[SprtState], None] | None = None,
        boards_at_once: int | None = None,
    ) -> None:
        super().__init__(
            spec.tournament_id,
            spec.tournament,
            RunProgress(0, spec.max_boards * GAMES_PER_BOARD, 0, 0.0),
        )
        self.engine = engine
        self.spec = spec
        self.executor = executor or LocalProcessExecutor()
        """The executor to play it on (its ``parallel`` sets the round's size)."""
        self.batch = max(1, boards_at_once or getattr(self.executor, "parallel", 1))
        self.on_board = on_board
        self.schedule: dict[int, ScheduledGame] = {}
        self.current = VersionTestResult(spec, [], 0)
        """The test as it stands after the last round."""

    def start(self) -> list[GameJob] | None:
        self.tournament = _tournament(self.engine, self.spec)
        self.versions = storage.entries(self.engine, self.tournament_id)
        self.rules = stored_rules(self.tournament)
        seeds = board_seeds(
            self.tournament.shuffle, self.tournament.seed, self.tournament.deal_secret
        )
        self.schedule = {
            game.schedule_index: game
            for board in range(self.spec.max_boards)
            for game in board_schedule(board, seeds(board))
        }
        self.current = result(self.engine, self.spec)
        self.progress.done = len(storage.stored_indexes(self.engine, self.tournament_id))
        return self._round()

    def next_round(self) -> list[GameJob] | None:
        """:raises ExecutorError: if the executor left the round's first board unplayed."""
        first = len(self.current.states)
        after = result(self.engine, self.spec)
        if len(after.states) == first:
            raise ExecutorError(f"the executor left board {first + 1} unplayed")
        for state in after.states[first:]:
            if self.on_board is not None:
                self.on_board(state)
        self.current = after
        return self._round()

    def _round(self) -> list[GameJob] | None:
        """The jobs of the next boards, or ``None`` once the test decided or ran out."""
        spec = self.spec
        first = len(self.current.states)
        if self.current.verdict is not Verdict.UNDECIDED or first >= spec.max_boards:
            return None
        stored = storage.stored_indexes(self.engine, self.tournament_id)
        # Nothing can decide before min_boards: the first round plays up to it at once.
        size = max(self.batch, spec.min_boards - first)
        prefix = f"version-test-{self.tournament_id}"
        return [
            game_job(self.tournament, self.rules, self.schedule[index], self.versions, prefix)
            for board in range(first, min(first + size, spec.max_boards))
            for index in range(board * GAMES_PER_BOARD, (board + 1) * GAMES_PER_BOARD)
            if index not in stored
        ]

    def store(self, job: GameJob, record: dict[str, Any]) -> None:
        game = self.schedule[job.schedule_index]
        seats = [storage.row_id(self.versions[e]) for e in game.entrants]
        store_game(self.engine, self.tournament_id, game, seats, record, len(SEATINGS))


async def run_version_test(
    engine: Engine,
    spec: VersionTestSpec,
    executor: Executor | None = None,
    on_board: Callable[[SprtState], None] | None = None,
    boards_at_once: int | None = None,
    outage: OutageWait | None = None,
) -> VersionTestResult:
    """Play boards of version test *spec* until the test decides or ``max_boards`` are
    spent (resuming: stored games are kept and counted); the result.

    Boards are played *boards_at_once* at a time (default: the executor's ``parallel``,
    else 1), since the executor never plays two games of one deal at once, and the first
    batch runs up to ``min_boards`` (no verdict comes earlier); the test is evaluated after
    each batch, board by board, so a batch's boards after the deciding one are stored but
    not counted. *on_board* is called with the test's state after each
    newly counted board. A database outage is waited out between boards as in every run
    (*outage*, :mod:`arena.tournament.outage`).

    :raises arena.tournament.executor.ExecutorError: if a worker fails (not a bot fault),
        or the executor returns with a board unplayed.
    :raises arena.storage.StorageError: for a database failure.
    :raises arena.storage.runner_lock.RunnerBusy: if another runner is playing it.
    """
    test = VersionTestRun(engine, spec, executor, on_board, boards_at_once)
    await play(engine, test, test.executor, outage=outage)
    return test.current


def _tournament(engine: Engine, spec: VersionTestSpec) -> Tournament:
    tournament = storage.get_tournament(engine, spec.tournament)
    if tournament.id != spec.tournament_id or tournament.format != FORMAT:
        raise StorageError(f"tournament {spec.tournament!r} is not this version test")
    return tournament
