"""Tournaments: the list, create one, start it in the background and follow it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from arena import storage
from arena.game.rules import PRESETS
from arena.tournament.formats import FORMATS
from dashboard import actions, auth, data
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

items = data.visible_tournaments(url, visitor)
if not items:
    st.info("No tournament yet.")
    st.stop()

st.dataframe(
    pd.DataFrame(
        {
            "Tournament": [t.name for t in items],
            "Status": [t.status for t in items],
            "Games": [f"{t.games_stored}/{t.games_total}" for t in items],
            "Progress": [t.fraction for t in items],
            "Rules": [t.ruleset for t in items],
            "Format": [t.format for t in items],
            "Boards": [t.boards for t in items],
            "Ratings": [t.rating_mode for t in items],
            "Bots": [", ".join(t.entrants) for t in items],
            "Created": [t.created_at for t in items],
        }
    ),
    hide_index=True,
    column_config={
        "Progress": st.column_config.ProgressColumn(min_value=0.0, max_value=1.0, format="percent")
    },
)

picked = data.pick_tournament(visitor)
if picked is None:
    st.stop()
tournament = picked  # not Optional: the fragment below reads it
st.subheader(md(tournament.name))


def start_controls(progress: storage.Progress) -> None:
    """Start or Resume (organisers), with a warning for a run this dashboard did not start."""
    stale = progress.status == "running"
    if stale:
        st.warning(
            "Marked as running, but not by this dashboard: it may run from a shell, or "
            "its runner died. Resume only if no runner is playing it."
        )
    label = "Start" if progress.stored == 0 and progress.status == "created" else "Resume"
    confirmed = True
    if stale:
        confirmed = st.checkbox("No runner is playing it", key="confirm_resume")
    if st.button(label, type="primary", disabled=not confirmed, key="start_runner"):
        try:
            actions.start_runner(url, data.data_directory(), tournament.name, visitor)
        except actions.ActionError as exc:
            st.error(md(str(exc)))
        else:
            st.rerun()


@st.fragment(run_every=2)
def follow() -> None:
    """Status, progress, the controls and the runner's output; refreshed every 2 s."""
    progress = data.progress(url, tournament.id)
    runner = actions.runner(tournament.name)
    st.markdown(
        f"{data.status_badge(progress.status)} · {progress.stored} / {progress.total} games · "
        f"{md(tournament.ruleset)}, {tournament.boards} board(s), {tournament.deals}, "
        f"rated per {md(tournament.rating_mode)}, {progress.arena_faults} arena fault(s)"
    )
    st.progress(progress.fraction)
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
        code = runner.exit_code
        if code not in (None, 0):
            st.error(f"The runner stopped with exit code {code}; finished games are kept.")
        tail = runner.log_tail() if organiser else ""  # it names server paths
        if tail:
            st.code(tail, language=None)


follow()
