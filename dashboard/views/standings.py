"""Standings of a tournament; refreshes by itself while the tournament runs."""

# ruff: noqa: RUF001  (Greek mu, sigma and the minus sign are shown on screen)

from __future__ import annotations

import pandas as pd
import streamlit as st

from arena.storage.standings import (
    FAULT_RULE,
    RATING_LAG_NOTE,
    STANDINGS_LEGEND,
    without_retired,
)
from arena.storage.travellers import DUPLICATE_FORMATS
from dashboard import auth, cells, data
from dashboard.text import code, md

st.title("Standings")
picked = data.pick_tournament(auth.visitor())
if picked is None:
    st.stop()
tournament = picked  # not Optional: the fragment below reads it

st.markdown(
    f"**{md(tournament.name)}** {data.status_badge(tournament.status)} · "
    f"{md(tournament.ruleset)} · {md(tournament.format.replace('_', ' '))} · "
    f"{tournament.boards} board(s) · rated per {md(tournament.rating_mode)} · "
    f"time control {code(tournament.time_control)}"
)


@st.fragment(run_every=None if tournament.status == "finished" else 2)
def live_standings() -> None:
    """Progress and the table; re-run every 2 s until the tournament is finished."""
    url = data.database_url()
    progress = data.progress(url, tournament.id)
    st.progress(
        progress.fraction,
        text=f"{progress.stored} / {progress.total} games stored ({progress.status})",
    )
    rows = data.standings(url, tournament.id, data.data_version(progress))
    retired = sum(row.retired for row in rows)
    # As `arena standings`: a ladder's retired versions (replaced by a newer version) are
    # hidden unless asked for, and the rest ranked among themselves.
    if retired and not st.toggle(f"Show {retired} retired version(s)", key="show_retired"):
        rows = without_retired(rows)
    table = pd.DataFrame(
        {
            "Rank": [r.rank for r in rows],
            # A ladder's leaver keeps its row and rating; say why it plays no more (as the CLI).
            "Bot": [r.bot if r.left is None else f"{r.bot} ({r.left})" for r in rows],
            "Owner": [r.owner for r in rows],
            "Rating (μ − 3σ)": [r.conservative for r in rows],
            "± 3σ": [3 * r.sigma for r in rows],
            "μ": [r.mu for r in rows],
            "σ": [r.sigma for r in rows],
            "P(>next)": [r.p_above_next for r in rows],
            "Rank 95%": [
                str(r.rank_low) if r.rank_low == r.rank_high else f"{r.rank_low}–{r.rank_high}"
                for r in rows
            ],
            "Games": [r.games for r in rows],
            "Faults": [r.faults for r in rows],
            # Faulted games are left out: the autopilot's play after a fault is not the bot's.
            "Wins": [r.clean_wins for r in rows],
            "Mean score": [r.clean_mean_score for r in rows],
            "Made 9": [r.made_9 for r in rows],
            "Made 5": [r.made_5 for r in rows],
            "Made 2": [r.made_2 for r in rows],
        }
    )
    percent = st.column_config.NumberColumn(format="percent")
    cells.table(
        table,
        hide_index=True,
        column_config={
            "Rating (μ − 3σ)": st.column_config.NumberColumn(
                format="%.2f", help="Conservative rating μ − 3σ: the leaderboard key"
            ),
            "± 3σ": st.column_config.NumberColumn(
                format="%.2f", help="Uncertainty: the true skill is within μ ± 3σ"
            ),
            "μ": st.column_config.NumberColumn(format="%.2f"),
            "σ": st.column_config.NumberColumn(format="%.2f"),
            "P(>next)": st.column_config.NumberColumn(
                format="percent",
                help="Chance this bot's skill is above the next row's (TrueSkill posteriors)",
            ),
            "Rank 95%": st.column_config.TextColumn(
                help="The ranks its true skill would take in 95 of 100 posterior draws"
            ),
            "Wins": st.column_config.NumberColumn(help="Wins in the games without a fault"),
            "Mean score": st.column_config.NumberColumn(
                format="%+.2f", help="Mean score over the games without a fault"
            ),
            "Made 9": percent,
            "Made 5": percent,
            "Made 2": percent,
            "Faults": st.column_config.NumberColumn(
                help="Games with at least one fault: each counts as last place for the rating"
            ),
        },
    )
    st.caption(
        "Rating = μ − 3σ (TrueSkill), sorted on it. Mean score is per game; "
        "made 9/5/2: share of hands in that seat where the bot took its contract."
    )
    st.caption(f"How sure: {STANDINGS_LEGEND}.")
    st.caption(f"Faults: {FAULT_RULE.replace('score/game', 'mean score')}.")
    if progress.rated < progress.stored:
        st.caption(
            f"Ratings cover {progress.rated} of {progress.stored} stored games: {RATING_LAG_NOTE}."
        )
    st.markdown(
        f"Arena faults: **{progress.arena_faults}** game(s) the arena itself failed "
        "(replayed, never rated or charged to a bot)."
    )
    if progress.status == "finished" and tournament.status != "finished":
        data.tournaments.clear()
        st.rerun()  # it just ended: redraw the whole page, without the auto-refresh


live_standings()

if tournament.format in DUPLICATE_FORMATS and tournament.entrants:
    # Each bot's results beside the others' on the same cards (the Analysis page).
    with st.expander("Duplicate analysis: each bot against the field on the same cards"):
        for name in dict.fromkeys(label.rsplit("@", 1)[0] for label in tournament.entrants):
            st.page_link(
                "views/analysis.py",
                label=f"Analysis of {md(name)}",
                icon=":material/analytics:",
                query_params={"tournament": tournament.name, "bot": name},
            )
