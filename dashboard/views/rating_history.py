"""Rating history: μ with a ±σ band per bot over its games."""

# ruff: noqa: RUF001, RUF002  (Greek mu, sigma and the minus sign are shown on screen)

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboard import auth, data

st.title("Rating history")
tournament = data.pick_tournament(auth.visitor())
if tournament is None:
    st.stop()

labels = dict(zip(tournament.entrants, tournament.entrant_ids, strict=True))
chosen = st.multiselect(
    "Bots",
    list(labels),
    default=list(labels)[:8],
    help="μ (line) with a ±σ band, over the games each bot has played.",
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
        "mu": [p.mu for p in points],
        "low": [p.mu - p.sigma for p in points],
        "high": [p.mu + p.sigma for p in points],
        "sigma": [p.sigma for p in points],
    }
)
x = alt.X("games:Q", title="games played")
colour = alt.Color("bot:N", title="bot")
band = (
    alt.Chart(frame)
    .mark_area(opacity=0.18)
    .encode(x=x, y=alt.Y("low:Q", title="rating (μ ± σ)"), y2="high:Q", color=colour)
)
line = (
    alt.Chart(frame)
    .mark_line()
    .encode(
        x=x,
        y="mu:Q",
        color=colour,
        tooltip=[
            "bot:N",
            "games:Q",
            alt.Tooltip("mu:Q", format=".2f"),
            alt.Tooltip("sigma:Q", format=".2f"),
        ],
    )
)
st.altair_chart((band + line).interactive(), width="stretch")

latest = frame.groupby("bot", sort=False).tail(1)
st.dataframe(
    latest[["bot", "games", "mu", "sigma"]].rename(
        columns={"bot": "Bot", "games": "Games", "mu": "μ", "sigma": "σ"}
    ),
    hide_index=True,
    column_config={
        "μ": st.column_config.NumberColumn(format="%.2f"),
        "σ": st.column_config.NumberColumn(format="%.2f"),
    },
)
st.caption(
    f"{progress.stored} of {progress.total} games stored. Long histories are thinned to "
    "about 300 points per bot; the last point is always the current rating."
)
