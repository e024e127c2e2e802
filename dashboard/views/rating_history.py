"""Rating history: each bot's rating (μ − 3σ, the leaderboard key) or its μ with a ±σ band,
over its games.

"Rating" means the conservative TrueSkill rating μ − 3σ everywhere in the arena (the
standings sort on it); μ alone is always labelled μ. Each bot keeps one colour on every
chart and visit (:func:`dashboard.charts.rating_history` colours by entrant order).
"""

# ruff: noqa: RUF001, RUF002  (Greek mu, sigma and the minus sign are shown on screen)

from __future__ import annotations

from typing import Final

import pandas as pd
import streamlit as st

from dashboard import auth, cells, charts, data

RATING: Final = charts.RATING
MU_BAND: Final = charts.MU_BAND

st.title("Rating history")
tournament = data.pick_tournament(auth.visitor())
if tournament is None:
    st.stop()

labels = dict(zip(tournament.entrants, tournament.entrant_ids, strict=True))
chosen = st.multiselect(
    "Bots",
    list(labels),
    default=list(labels)[:8],
    help="Each bot keeps its colour whichever bots are chosen.",
)
shown = st.radio(
    "Plot",
    (RATING, MU_BAND),
    horizontal=True,
    help="Rating = μ − 3σ, the conservative TrueSkill rating the standings sort on: a bot "
    "is at least this good with about 99.9% certainty. μ is the skill estimate, σ its doubt.",
)
url = data.database_url()
progress = data.progress(url, tournament.id)
points = data.rating_history(
    url, tournament.id, data.data_version(progress), tuple(labels[c] for c in chosen)
)
if not points:
    st.info("No rating yet: ratings appear once the first game (or board) is stored.")
    st.stop()

frame = pd.DataFrame(
    {
        "bot": [p.bot for p in points],
        "games": [p.games for p in points],
        "rating": [p.mu - 3 * p.sigma for p in points],
        "mu": [p.mu for p in points],
        "low": [p.mu - p.sigma for p in points],
        "high": [p.mu + p.sigma for p in points],
        "sigma": [p.sigma for p in points],
    }
)
st.altair_chart(charts.rating_history(frame, tournament.entrants, shown), width="stretch")

latest = frame.groupby("bot", sort=False).tail(1).sort_values("rating", ascending=False)
cells.table(
    latest[["bot", "games", "rating", "mu", "sigma"]].rename(
        columns={"bot": "Bot", "games": "Games", "rating": RATING, "mu": "μ", "sigma": "σ"}
    ),
    hide_index=True,
    column_config={
        RATING: st.column_config.NumberColumn(format="%.2f", help="μ − 3σ: the leaderboard key"),
        "μ": st.column_config.NumberColumn(format="%.2f", help="TrueSkill's skill estimate"),
        "σ": st.column_config.NumberColumn(format="%.2f", help="The doubt in μ"),
    },
)
st.caption(
    f"{progress.stored} of {progress.total} games stored. Rating = μ − 3σ, as on Standings. "
    "Long histories are thinned to about 300 points per bot; the last point is always the "
    "current value."
)
