"""Tournaments: the list, create one, start it in the background and follow it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from arena import storage
from arena.game.rules import PRESETS
from arena.ratings.sprt import Verdict
from arena.storage import runner_liveness
from arena.storage.runner_liveness import runner_alive
from arena.tournament import compare
from arena.tournament.formats import FORMATS
from dashboard import actions, auth, cells, data
from dashboard.progress_text import ShownProgress, progress_of
from dashboard.runner_text import runner_outcome
from dashboard.text import md

st.title("Tournaments")
url = data.database_url()
visitor = auth.visitor()
organiser = visitor is not None and visitor.is_organiser


def create_section() -> None:
    """The form that creates (and optionally starts) a tournament: organisers only, which
    :func:`dashboard.actions.create_tournament` checks again."""
    bot_names = [b.name for b in data.bots(url) if b.versions]
    with st.form("create_tournament"):
        name = st.text_input("Name", placeholder="e.g. spring-cup")
        bots = st.multiselect("Bots (their latest versions)", bot_names, default=bot_names[:3])
        left, middle, right = st.columns(3)
        ruleset = left.selectbox("Rules", list(PRESETS), index=0)
        boards = middle.number_input("Boards per table", min_value=1, max_value=10_000, value=2)
        reproducible = right.checkbox(
            "Reproducible seed",
            value=False,
            help="Deals from a seed you choose, for research: anyone who knows it can "
            "predict every hand. Off (the default): a fresh secret no bot can search.",
        )
        seed = right.number_input(
            "Seed (only with a reproducible seed)", min_value=0, max_value=2**53 - 1, value=0
        )
        left, middle, right = st.columns(3)
        formats = sorted(FORMATS)
        format_name = left.selectbox("Format", formats, index=formats.index("round_robin"))
        rating_mode = middle.selectbox("Ratings", ["board", "game"])
        time_control = right.text_input("Time control", actions.DEFAULT_TIME_CONTROL)
        start_now = st.checkbox("Start it now", value=True)
        create = st.form_submit_button("Create")
    if create:
        try:
            message = actions.create_tournament(
                data.engine(),
                name=name,
                ruleset=ruleset,
                bots=bots,
                boards=int(boards),
                seed=int(seed) if reproducible else None,
                format_name=format_name,
                rating_mode=rating_mode,
                time_control=time_control,
                by=visitor,
            )
        except actions.ActionError as exc:
            st.error(md(str(exc)))
        else:
            st.success(md(message))
            data.tournaments.clear()
            st.session_state["_selected_tournament"] = name.strip()
            st.session_state.pop("tournament", None)
            if start_now:
                try:
                    actions.start_runner(url, data.data_directory(), name.strip(), visitor)
                except actions.ActionError as exc:
                    st.error(md(str(exc)))


if organiser:
    with st.expander("Create a tournament", expanded=False):
        create_section()
else:
    st.caption("Log in as an organiser (in the sidebar) to create or run tournaments.")

if not data.visible_tournaments(url, visitor):
    st.info("No tournament yet.")
    st.stop()


@st.cache_data(max_entries=256, show_spinner=False)
def _verdict(url: str, tournament_id: int, stored: int) -> Verdict | None:
    """A finished version test's verdict (it never changes once finished: cached for good)."""
    engine = data.engine_for(url)
    spec = compare.load_spec(engine, tournament_id)
    return None if spec is None else compare.result(engine, spec).verdict


@st.cache_data(ttl=5, show_spinner=False)
def _games_budget(url: str, tournament_id: int) -> int:
    """A ladder's game budget (0: none)."""
    return storage.ladder_settings(data.engine_for(url), tournament_id).games_budget


def _alive(tournament_id: int) -> bool | None:
    """Whether a runner holds the tournament now (``None``: cannot be known):
    :func:`arena.storage.runner_liveness.runner_alive`, the rule ``arena tournament
    status`` uses too."""
    try:
        return runner_alive(data.engine(), tournament_id)
    except storage.StorageError:
        return None


def shown_status(status: str, tournament_id: int) -> str:
    """The stored status, corrected by the runner's liveness: a ``running`` tournament
    whose runner is gone says so (the stored status outlives a killed runner)."""
    return runner_liveness.shown_status(
        status, _alive(tournament_id) if status == runner_liveness.RUNNING else None
    )


def shown_progress(
    format_name: str, status: str, tournament_id: int, stored: int, scheduled: int
) -> ShownProgress:
    """The progress in words that fit the tournament's format (dashboard.progress_text)."""
    finished = status == "finished"
    return progress_of(
        format_name=format_name,
        status=status,
        stored=stored,
        scheduled=scheduled,
        verdict=_verdict(url, tournament_id, stored)
        if format_name == compare.FORMAT and finished
        else None,
        games_budget=_games_budget(url, tournament_id)
        if format_name == storage.LADDER_FORMAT
        else None,
    )


@st.fragment(run_every=2)
def tournament_list() -> None:
    """Every tournament the visitor may see, read afresh with the followed one below: the
    list used to be drawn once per page run, so a tournament created, started and
    finished on this page stayed ``created 0/6`` above its own ``finished 6/6``."""
    items = data.visible_tournaments(url, visitor)
    shown = [shown_progress(t.format, t.status, t.id, t.games_stored, t.games_total) for t in items]
    cells.table(
        pd.DataFrame(
            {
                "Tournament": [t.name for t in items],
                "Status": [shown_status(t.status, t.id) for t in items],
                "Games": [p.games for p in shown],
                "Progress": [p.fraction for p in shown],
                "Rules": [t.ruleset for t in items],
                "Format": [t.format for t in items],
                "Boards": [t.boards for t in items],
                "Ratings": [t.rating_mode for t in items],
                "Bots": [", ".join(t.entrants) for t in items],
                "Created": [t.created_at for t in items],
            }
        ),
        column_config={
            "Progress": st.column_config.ProgressColumn(
                min_value=0.0, max_value=1.0, format="percent"
            )
        },
    )


tournament_list()

picked = data.pick_tournament(visitor)
if picked is None:
    st.stop()
tournament = picked  # not Optional: the fragment below reads it
st.subheader(md(tournament.name))


def start_controls(progress: storage.Progress) -> None:
    """Start or Resume (organisers). A tournament stored as running is resumed only once
    its runner is known to be gone (the runner-liveness probe); when that cannot be known
    (an in-memory database), the organiser confirms it."""
    alive = _alive(tournament.id) if progress.status == runner_liveness.RUNNING else False
    if alive:
        st.info(
            "Running from another process (a shell, or another dashboard): follow it here; "
            "stop it where it was started."
        )
        return
    confirmed = True
    if progress.status == runner_liveness.RUNNING:
        if alive is None:
            st.warning(
                "Marked as running, but not by this dashboard, and whether its runner "
                "lives cannot be told here. Resume only if no runner is playing it."
            )
            confirmed = st.checkbox("No runner is playing it", key="confirm_resume")
        else:
            st.warning(
                "Its runner is gone (stopped or killed): Resume plays the rest, keeping "
                "every game stored."
            )
    label = "Start" if progress.stored == 0 and progress.status == "created" else "Resume"
    if st.button(label, type="primary", disabled=not confirmed, key="start_runner"):
        try:
            actions.start_runner(url, data.data_directory(), tournament.name, visitor)
        except actions.ActionError as exc:
            st.error(md(str(exc)))
        else:
            st.rerun()


@st.fragment(run_every=2)
def follow() -> None:
    """Status, progress, the controls and how the runner ended; refreshed every 2 s."""
    progress = data.progress(url, tournament.id)
    runner = actions.runner(tournament.name)
    shown = shown_progress(
        tournament.format, progress.status, tournament.id, progress.stored, progress.total
    )
    st.markdown(
        f"{data.status_badge(shown_status(progress.status, tournament.id))} · "
        f"{md(shown.line)} · "
        f"{md(tournament.ruleset)}, {tournament.boards} board(s), {tournament.deals}, "
        f"rated per {md(tournament.rating_mode)}, {progress.arena_faults} arena fault(s)"
    )
    if shown.fraction is not None:
        st.progress(shown.fraction)
    if progress.status == "finished":
        st.success("Finished: see **Standings**, **Statistics** and **Replays**.")
    elif runner is not None and runner.running:
        # The pid is the server's business: organisers only (they may need to kill it).
        pid = f" (pid {runner.process.pid})" if organiser else ""
        st.info(f"Running in the background{pid}.")
        if organiser and st.button("Stop", key="stop_runner", icon=":material/stop:"):
            try:
                actions.stop_runner(tournament.name, visitor)
            except actions.ActionError as exc:
                st.error(md(str(exc)))
    elif organiser:
        start_controls(progress)
    else:
        st.caption("An organiser can start or resume it.")
    if runner is not None:
        # One line in words, never the runner's console output (a progress bar redrawn,
        # its workers' log lines): that stays in its log file, named for organisers only.
        outcome = runner_outcome(runner.log_tail(lines=200), runner.exit_code)
        if outcome is not None:
            st.error(md(outcome))
        if organiser and not runner.running:
            st.caption(f"The runner's whole output: {md(str(runner.log))}")


follow()
