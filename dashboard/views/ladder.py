"""Ladder: what a ladder is playing now, what is queued, who waits to be matched first,
its entrants (retired versions too) and its latest matches; refreshed every 2 s.

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
from dashboard import data
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


@st.fragment(run_every=2)
def live() -> None:
    """The ladder's state, read afresh (cheap queries: the last matches, the entrants)."""
    engine = data.engine()
    settings = storage.ladder_settings(engine, ladder.id)
    progress = storage.progress(engine, ladder.id)
    budget = f"{settings.games_budget:,} games" if settings.games_budget else "no game budget"
    st.markdown(
        f"{data.status_badge(progress.status)} · {progress.stored:,} games stored · {budget} · "
        f"stops when every bot is above the next with P >= {settings.confidence:g} after "
        f"{settings.min_games}+ rated games each · {ladder.deals}"
    )
    playing = storage.unfinished_matches(engine, ladder.id)
    st.subheader("Playing now")
    if not playing:
        st.caption("Nothing: the ladder is not running, or it is choosing its next match.")
    else:
        st.dataframe(
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
        st.dataframe(
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
    st.dataframe(
        pd.DataFrame(
            {
                "Bot": [e.label for e in labels.values()],
                "State": ["retired" if e.retired else "matched" for e in labels.values()],
                "Rated games": [games.get(e.bot_version_id) for e in labels.values()],
            }
        ),
        hide_index=True,
    )
    st.subheader("Latest matches")
    start = max(0, progress.total // BOARD_SIZE - 10)
    latest = [m for m in storage.ladder_matches(engine, ladder.id, start=start) if m.complete]
    if latest:
        st.dataframe(
            pd.DataFrame(
                {
                    "Match": [m.match_index for m in reversed(latest)],
                    "Bots": [", ".join(m.labels) for m in reversed(latest)],
                }
            ),
            hide_index=True,
        )


live()
