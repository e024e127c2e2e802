"""Version tests (``arena bot compare``): the sequential test's progress, board by board.

The page redraws a test from what is stored: the games (per-board score differences) and
the test's settings file in the data directory; it refreshes by itself while the test runs.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from arena.ratings.sprt import Verdict
from arena.tournament import compare
from dashboard import cells, data
from dashboard.text import md

st.title("Version tests")
url = data.database_url()

_VERDICTS = {
    Verdict.BETTER: ":green-badge[better]",
    Verdict.NOT_BETTER: ":red-badge[not better]",
    Verdict.UNDECIDED: ":gray-badge[no decision yet]",
}


@st.cache_data(max_entries=64, show_spinner=False)
def _result(
    url: str, spec: compare.VersionTestSpec, version: data.Version
) -> compare.VersionTestResult:
    """The test as stored at data *version* (recomputed only when a game was stored)."""
    return compare.result(data.engine_for(url), spec)


tests = [t for t in data.tournaments(url) if t.format == compare.FORMAT]
if not tests:
    st.info(
        "No version test yet. Run one with `arena bot compare CANDIDATE BASELINE "
        "--opponents X,Y`: it plays both versions against the same opponents on the same "
        "deals until a sequential test decides whether the candidate is better."
    )
    st.stop()
names = [t.name for t in tests]
wanted = st.query_params.get("test")
chosen = st.selectbox("Version test", names, index=names.index(wanted) if wanted in names else 0)
st.query_params["test"] = chosen
test = tests[names.index(chosen)]
stored_spec = compare.load_spec(data.engine(), test.id)
if stored_spec is None:
    st.warning(
        f"The settings of **{md(test.name)}** are not stored: its games are, but its test "
        "cannot be redrawn."
    )
    st.stop()
spec = stored_spec  # not Optional: the fragment below reads it


@st.fragment(run_every=None if test.status == "finished" else 2)
def progress_view() -> None:
    """The verdict, the figures, and the LLR against its bounds over the boards."""
    progress = data.progress(url, test.id)
    outcome = _result(url, spec, data.data_version(progress))
    final = outcome.final
    st.markdown(
        f"**{md(spec.candidate)}** vs **{md(spec.baseline)}**, each against "
        f"{md(spec.opponents[0])} and {md(spec.opponents[1])} on the same deals · {_VERDICTS[final.verdict]} "
        f"{data.status_badge(progress.status)}"
    )
    st.caption(
        f"H0: no better; H1: at least {spec.margin:g} point(s) per game better. "
        f"alpha {spec.alpha:g}, beta {spec.beta:g}; a verdict from board {spec.min_boards} "
        f"on, at most {spec.max_boards} boards of {compare.GAMES_PER_BOARD} games."
    )
    left, middle, right = st.columns(3)
    left.metric("Boards counted", final.boards, help=f"{outcome.boards_stored} complete stored")
    middle.metric(
        "Mean difference (points/game)",
        cells.EMPTY if math.isnan(final.mean) else f"{final.mean:+.2f}",
        help="95% interval: "
        + (
            "needs two boards"
            if math.isnan(final.ci_low)
            else f"[{final.ci_low:+.2f}, {final.ci_high:+.2f}]"
        ),
    )
    right.metric(
        "LLR",
        f"{final.llr:+.2f}",
        help=f"Bounds: {final.lower:+.2f} (not better) and {final.upper:+.2f} (better)",
    )
    if outcome.states:
        boards = [state.boards for state in outcome.states]
        chart = pd.DataFrame(
            {
                "LLR": [state.llr for state in outcome.states],
                "better bound": [final.upper] * len(boards),
                "not-better bound": [final.lower] * len(boards),
            },
            index=pd.Index(boards, name="board"),
        )
        st.line_chart(chart, x_label="board", y_label="log-likelihood ratio")
        cells.table(
            pd.DataFrame(
                {
                    "Board": boards,
                    "Mean difference": [state.mean for state in outcome.states],
                    "LLR": [state.llr for state in outcome.states],
                }
            ),
            hide_index=True,
            column_config={
                "Mean difference": st.column_config.NumberColumn(format="%+.2f"),
                "LLR": st.column_config.NumberColumn(format="%+.3f"),
            },
        )
    else:
        st.info("No complete board yet: the first appears after its 12 games.")
    st.caption(
        f"Every game is stored in tournament **{md(test.name)}**: pick it on the **Replays** "
        f"page to replay them ({progress.stored} stored)."
    )
    if progress.status == "finished" and test.status != "finished":
        data.tournaments.clear()
        st.rerun()


progress_view()
