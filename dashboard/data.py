"""The dashboard's view of the database: one engine per URL, cached query results.

Results of the expensive queries are cached per tournament *and* per data version (stored
game count and last game id), so a finished tournament is computed once and a running one
is recomputed only when a game was stored. The version itself is a cheap, index-only query
polled at most once a second.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import SQLAlchemyError

from arena import storage
from arena.replay.steps import Replay, build_replay
from arena.storage.database import StorageError, data_dir, default_url, open_database
from arena.storage.live import LiveRow, live_rows
from arena.storage.outage import unreachable_reason
from arena.storage.privacy import Viewer, redact_seats, seat_owners
from arena.storage.test_matches import may_see_tournament
from arena.storage.users import Actor
from arena.tournament import held_back as held_back_rule

Version = tuple[int, int, str]
"""(stored games, last game id, status): changes whenever a tournament's data does."""


def database_url() -> str:
    """The database this dashboard serves: ``ARENA_DB`` (set by ``arena dashboard --db``)."""
    return default_url()


def shown_url() -> str:
    """The database URL with any password hidden."""
    try:
        return make_url(database_url()).render_as_string(hide_password=True)
    except Exception:  # a display helper must not break the page
        return "?"


def data_directory() -> Path:
    """Where submitted bots and runner logs go (``ARENA_DATA``)."""
    return data_dir()


@st.cache_resource(show_spinner=False)
def engine_for(url: str) -> Engine:
    """One engine per database URL for the whole server (migrated on first use)."""
    return open_database(url)


def engine() -> Engine:
    """The engine of the served database."""
    return engine_for(database_url())


@st.cache_data(ttl=2, show_spinner=False)
def tournaments(url: str) -> list[storage.TournamentInfo]:
    """Every tournament, newest first, private ones included: pages that list or pick
    tournaments use :func:`visible_tournaments`."""
    return storage.tournament_overview(engine_for(url))


def visible_tournaments(url: str, visitor: Actor | None) -> list[storage.TournamentInfo]:
    """The tournaments *visitor* (``None``: a spectator) may see, newest first: the public
    ones, and a test match's private one only for its requester and organisers."""
    return [t for t in tournaments(url) if may_see_tournament(t.private_to, visitor)]


@st.cache_data(ttl=1, show_spinner=False)
def progress(url: str, tournament_id: int) -> storage.Progress:
    """Status and stored games of a tournament."""
    return storage.progress(engine_for(url), tournament_id)


RETRY_SECONDS = 5
"""How often a page that met a database outage checks whether the database is back."""
UNAVAILABLE = "database unavailable, retrying"


def show_if_unavailable(exc: BaseException) -> bool:
    """If *exc* says the database cannot be reached (a restart, a failover:
    :func:`arena.storage.outage.unreachable_reason`), show "database unavailable,
    retrying" instead of the page, and come back by itself once the database answers;
    whether it did. Any other error is the caller's to raise.

    Why a timer in the page rather than a loop here: a script run that sleeps holds its
    session, and the visitor could not even switch pages meanwhile; the fragment below
    asks every :data:`RETRY_SECONDS` seconds, in the browser's own time, and reruns the
    whole page once the database is back (pages never cache a failure: Streamlit caches
    only results).
    """
    reason = unreachable_reason(exc)
    if reason is None:
        return False
    st.warning(f"{UNAVAILABLE} ({reason}); this page comes back by itself once it answers.")
    _rerun_when_back()
    return True


@st.fragment(run_every=RETRY_SECONDS)
def _rerun_when_back() -> None:
    if database_answers():
        st.rerun(scope="app")


def database_answers() -> bool:
    """Whether the served database answers a trivial query now."""
    try:
        with engine().connect() as connection:
            connection.execute(text("SELECT 1"))
    except (StorageError, SQLAlchemyError):
        return False
    return True


def data_version(progress: storage.Progress) -> Version:
    """The cache key of a tournament's data."""
    return (progress.stored, progress.last_game_id, progress.status)


@st.cache_data(max_entries=64, show_spinner=False)
def standings(url: str, tournament_id: int, data_version: Version) -> list[storage.StandingRow]:
    """Standings of a tournament at *data_version*."""
    return storage.standings(engine_for(url), tournament_id)


@st.cache_data(max_entries=64, show_spinner=False)
def rating_history(
    url: str, tournament_id: int, data_version: Version, bots: tuple[int, ...] | None
) -> list[storage.RatingPoint]:
    """Rating points per bot, thinned to a few hundred each."""
    return storage.rating_history(engine_for(url), tournament_id, bots)


@st.cache_data(max_entries=32, show_spinner=False)
def head_to_head(url: str, tournament_id: int, data_version: Version) -> list[storage.HeadToHead]:
    """Mean score differences per pair, with confidence intervals."""
    return storage.head_to_head(engine_for(url), tournament_id)


@st.cache_data(max_entries=32, show_spinner=False)
def contract_stats(
    url: str, tournament_id: int, data_version: Version
) -> list[storage.ContractStats]:
    """Hands played and made per bot and contract."""
    return storage.contract_stats(engine_for(url), tournament_id)


@st.cache_data(max_entries=32, show_spinner=False)
def record_stats(url: str, tournament_id: int, data_version: Version) -> storage.RecordStats:
    """Per-contract mean deltas and trump calls over every stored game (from the tallies:
    no record is read)."""
    return storage.record_stats(engine_for(url), tournament_id)


@st.cache_data(max_entries=32, show_spinner=False)
def fault_counts(url: str, tournament_id: int, data_version: Version) -> list[storage.FaultCount]:
    """Games and faulted games per bot."""
    return storage.fault_counts(engine_for(url), tournament_id)


@st.cache_data(ttl=5, max_entries=64, show_spinner=False)
def faults(
    url: str, tournament_id: int | None, bots: tuple[int, ...] | None, limit: int, viewer: Viewer
) -> list[storage.FaultRow]:
    """Faults of the latest faulted games, as *viewer* may read them (the cache is keyed
    by the viewer: one viewer's readable details never reach another)."""
    rows = storage.faults(
        engine_for(url),
        tournament_id=tournament_id,
        bot_version_ids=None if bots is None else list(bots),
        limit=limit,
        viewer=viewer,
    )
    # A test match's faults show only to whom its private tournament shows.
    private = {t.name: t.private_to for t in tournaments(url) if t.private_to is not None}
    return [
        row
        for row in rows
        if row.tournament not in private or viewer.may_read(private[row.tournament])
    ]


@st.cache_data(ttl=3, show_spinner=False)
def bots(url: str) -> list[storage.BotInfo]:
    """Every bot with its versions."""
    return storage.bot_overview(engine_for(url))


@st.cache_data(ttl=2, max_entries=256, show_spinner=False)
def games(
    url: str, tournament_id: int, bot: int | None, start: int, limit: int
) -> list[storage.GameRow]:
    """A page of stored games."""
    return storage.game_page(
        engine_for(url), tournament_id, bot_version_id=bot, start=start, limit=limit
    )


@st.cache_data(ttl=2, max_entries=256, show_spinner=False)
def game_count(url: str, tournament_id: int, bot: int | None) -> int:
    """Stored games of a tournament (of one bot)."""
    return storage.game_count(engine_for(url), tournament_id, bot)


@st.cache_data(max_entries=256, show_spinner=False)
def game(url: str, game_id: int) -> storage.GameRow | None:
    """A stored game's header (games never change once stored)."""
    return storage.game_row(engine_for(url), game_id)


@st.cache_data(ttl=1, max_entries=1024, show_spinner=False)
def games_in_range(url: str, tournament_id: int, start: int, stop: int) -> int:
    """Stored games of a tournament with schedule index in ``start .. stop - 1``."""
    return storage.games_in_range(engine_for(url), tournament_id, start, stop)


HeldBack = held_back_rule.HeldBack
"""A stored game whose cards are not shown yet (:mod:`arena.tournament.held_back`)."""


def held_back(url: str, tournament: storage.TournamentInfo, schedule_index: int) -> HeldBack | None:
    """Why game *schedule_index* of *tournament* may not show its cards yet, or ``None``:
    :func:`arena.tournament.held_back.held_back` (the HTTP API's rule too), counting stored
    games through this module's cache."""
    return held_back_rule.held_back(
        held_back_rule.DealFacts.of(tournament),
        schedule_index,
        lambda tournament_id, start, stop: games_in_range(url, tournament_id, start, stop),
    )


@st.cache_data(ttl=10, max_entries=1024, show_spinner=False)
def readable_seats(url: str, game_id: int, viewer: Viewer) -> tuple[int, ...]:
    """The seats of stored game *game_id* whose logs and fault details *viewer* may read."""
    owners = seat_owners(engine_for(url), game_id)
    return tuple(sorted(viewer.readable_seats(owners)))


@st.cache_resource(max_entries=16, show_spinner=False)
def replay(url: str, game_id: int, readable: tuple[int, ...]) -> Replay:
    """A stored game as replay steps, with the logs and fault details of the *readable*
    seats only (:func:`arena.storage.privacy.redact_seats`; :func:`readable_seats` says
    which a viewer may read). Kept as a resource (snapshots are not picklable) under that
    key: stored games never change, so sessions that may read the same seats share it,
    and no session gets a copy holding more than its own seats."""
    record = redact_seats(storage.game_record(engine_for(url), game_id), readable)
    return build_replay(record, game=str(game_id))


# ------------------------------------------------------------------- shared widgets

_SELECTED = "_selected_tournament"


def pick_tournament(
    visitor: Actor | None, label: str = "Tournament"
) -> storage.TournamentInfo | None:
    """A sidebar choice among the tournaments *visitor* may see, remembered across pages
    (``?tournament=`` too: a private tournament's name there shows nothing to others)."""
    items = visible_tournaments(database_url(), visitor)
    if not items:
        st.info(
            "No tournament yet. Create one on the **Tournaments** page, or with "
            "`arena tournament create`."
        )
        return None
    names = [t.name for t in items]
    remembered = st.session_state.get(_SELECTED)
    if remembered not in names:
        wanted = st.query_params.get("tournament")
        remembered = wanted if wanted in names else _default(items)
    # A widget's state does not survive a page switch; the remembered name does, and is
    # handed back to the widget on every run (the user's change lands in it via on_change).
    st.session_state["tournament"] = remembered
    name = st.sidebar.selectbox(label, names, key="tournament", on_change=_remember)
    st.session_state[_SELECTED] = name
    return items[names.index(name)]


def _remember() -> None:
    st.session_state[_SELECTED] = st.session_state["tournament"]


def _default(items: list[storage.TournamentInfo]) -> str:
    """A running tournament, else the newest with games, else the newest."""
    for candidates in (
        [t for t in items if t.status == "running"],
        [t for t in items if t.games_stored],
        items,
    ):
        if candidates:
            return candidates[0].name
    raise ValueError("no tournament")


def status_badge(status: str) -> str:
    """A coloured status label for markdown."""
    colour = {
        "running": "blue",
        "finished": "green",
        "played": "green",
        "failed": "red",
        "interrupted": "orange",
    }.get(status, "gray")
    return f":{colour}-badge[{status}]"


# ------------------------------------------------------------------------ live games


@st.cache_data(ttl=0.25, show_spinner=False)
def live_games(url: str) -> list[LiveRow]:
    """The games being played now in public tournaments, with their public views only
    (:mod:`arena.storage.live`); cached a quarter of a second, so a room full of
    spectators polling every second costs the database a few reads a second."""
    return live_rows(engine_for(url))
