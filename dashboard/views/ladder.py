"""Ladder: what a ladder is playing now, what is queued, who waits to be matched first,
its entrants (retired and withdrawn ones too) and its latest matches; refreshed every 2 s.
An organiser opens or closes it here, and sets its daily quota of versions.

A ladder chooses each match the moment a worker is free, from the ratings of every game
stored so far (a queue of matches chosen earlier would be chosen on older ratings), so its
queue is the games still to play of the matches in play, and, next in line, the newcomers
the matchmaker seats first.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from arena import storage
from arena.storage.models import BOARD_SIZE
from arena.tournament.ladder import contenders
from dashboard import actions, auth, cells, data
from dashboard.text import md

st.title("Ladder")
url = data.database_url()
ladders = [t for t in data.tournaments(url) if t.format == storage.LADDER_FORMAT]
if not ladders:
    st.info(
        "No ladder yet. Create one with `arena tournament create NAME --format ladder "
        "--bots A,B,C` (or on the Tournaments page), and run it with `arena tournament run`."
    )
    st.stop()
names = [t.name for t in ladders]
chosen = st.selectbox("Ladder", names, index=0)
ladder = ladders[names.index(chosen)]
visitor = auth.visitor()


def access_section() -> None:
    """Open or close the ladder and set its quota: organisers only, which
    :func:`dashboard.actions.set_ladder_open` checks again."""
    settings = storage.ladder_settings(data.engine(), ladder.id)
    with st.form(f"ladder_access_{ladder.id}"):
        is_open = st.toggle(
            "Open: every newly stored version enters it by itself",
            value=settings.open,
            help="After its smoke game, a new bot or version enters, and its bot's "
            "previous version here retires.",
        )
        quota = st.number_input(
            "Versions a participant may submit in 24 hours (0: no quota)",
            min_value=0,
            max_value=10_000,
            value=settings.max_versions_per_day or 0,
        )
        save = st.form_submit_button("Save")
    if save:
        try:
            message = actions.set_ladder_open(
                data.engine(),
                ladder.id,
                is_open=is_open,
                max_versions_per_day=int(quota) or None,
                by=visitor,
            )
        except actions.ActionError as exc:
            st.error(md(str(exc)))
        else:
            st.success(md(f"{ladder.name}: {message}"))


if visitor is not None and visitor.is_organiser:
    with st.expander("Open or close this ladder", expanded=False):
        access_section()


@st.fragment(run_every=2)
def live() -> None:
    """The ladder's state, read afresh (cheap queries: the last matches, the entrants)."""
    engine = data.engine()
    settings = storage.ladder_settings(engine, ladder.id)
    progress = storage.progress(engine, ladder.id)
    budget = f"{settings.games_budget:,} games" if settings.games_budget else "no game budget"
    access = "open: new versions enter by themselves" if settings.open else "closed"
    if settings.open and settings.max_versions_per_day is not None:
        access += f" (at most {settings.max_versions_per_day} a day per participant)"
    st.markdown(
        f"{data.status_badge(progress.status)} · {progress.stored:,} games stored · {budget} · "
        f"stops when every bot is above the next with P >= {settings.confidence:g} after "
        f"{settings.min_games}+ rated games each · {ladder.deals} · {access}"
    )
    playing = storage.unfinished_matches(engine, ladder.id)
    st.subheader("Playing now")
    if not playing:
        st.caption("Nothing: the ladder is not running, or it is choosing its next match.")
    else:
        cells.table(
            pd.DataFrame(
                {
                    "Match": [m.match_index for m in playing],
                    "Bots": [", ".join(m.labels) for m in playing],
                    "Games stored": [f"{m.games_stored}/{BOARD_SIZE}" for m in playing],
                    "Chosen at": [m.scheduled_at for m in playing],
                }
            ),
            hide_index=True,
        )
    st.subheader("Queue")
    queued = [
        (m.match_index, seating, ", ".join(m.labels))
        for m in playing
        for seating in range(m.games_stored, BOARD_SIZE)
    ]
    if queued:
        st.caption(
            "The games still to play of the matches in play, in order (while the ladder "
            "runs, the first of each match is being played: never two games of one deal "
            "at once)."
        )
        cells.table(
            pd.DataFrame(
                {
                    "Match": [q[0] for q in queued],
                    "Seating": [q[1] + 1 for q in queued],
                    "Bots": [q[2] for q in queued],
                }
            ),
            hide_index=True,
        )
    else:
        st.caption("No game waits: the next match is chosen when a worker is free.")
    bots = contenders(engine, ladder.id)
    labels = {e.bot_version_id: e for e in storage.ladder_entrants(engine, ladder.id)}
    newcomers = sorted((c for c in bots if c.games < settings.min_games), key=lambda c: c.games)
    if newcomers:
        st.markdown(
            "**Matched first** (fewer than the minimum games): "
            + ", ".join(f"{md(labels[c.key].label)} ({c.games})" for c in newcomers)
        )
    st.subheader("Entrants")
    games = {r.bot_version_id: r.games for r in storage.ratings(engine, ladder.id)}
    cells.table(
        pd.DataFrame(
            {
                "Bot": [e.label for e in labels.values()],
                "State": ["matched" if e.active else e.state for e in labels.values()],
                "Left at": [e.left_at for e in labels.values()],
                "Rated games": [games.get(e.bot_version_id) for e in labels.values()],
            }
        ),
        hide_index=True,
    )
    st.subheader("Latest matches")
    start = max(0, progress.total // BOARD_SIZE - 10)
    latest = [m for m in storage.ladder_matches(engine, ladder.id, start=start) if m.complete]
    if latest:
        cells.table(
            pd.DataFrame(
                {
                    "Match": [m.match_index for m in reversed(latest)],
                    "Bots": [", ".join(m.labels) for m in reversed(latest)],
                }
            ),
            hide_index=True,
        )


live()
