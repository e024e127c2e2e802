"""Statistics: head to head with confidence intervals, results by contract seat, faults."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import streamlit as st

from arena.storage import TRUMPS, FaultRow, TournamentInfo
from arena.storage.privacy import Viewer
from dashboard import auth, cells, charts, data
from dashboard.text import md

st.title("Statistics")
tournament = data.pick_tournament(auth.visitor())
if tournament is None:
    st.stop()
url = data.database_url()
progress = data.progress(url, tournament.id)
version = data.data_version(progress)
if progress.stored == 0:
    st.info(f"**{md(tournament.name)}** has no stored game yet.")
    st.stop()
st.caption(f"**{md(tournament.name)}**: {progress.stored} of {progress.total} games stored.")


@st.cache_data(max_entries=64, show_spinner=False)
def _head_to_head_spec(matrix: pd.DataFrame, entrants: tuple[str, ...]) -> dict[str, Any]:
    """The heatmap's Vega-Lite spec, built once per matrix (that is, per data version):
    Altair builds a chart and checks its spec against the Vega-Lite schema every time it
    is drawn, a third of a warm run of this page; the spec it draws is the same."""
    spec: dict[str, Any] = charts.head_to_head(matrix, entrants).to_dict()
    return spec


def _detail(fault: FaultRow, tournament: TournamentInfo) -> str:
    """A fault's detail, unless it may name cards of deals still to be played."""
    held = data.held_back(url, tournament, fault.schedule_index)
    return fault.detail if held is None else "held back: " + held.notice()


head, seats, faults = st.tabs(["Head to head", "By seat", "Faults"])

with head:
    pairs = data.head_to_head(url, tournament.id, version)
    both = pairs + [p.flipped() for p in pairs]
    st.markdown(
        "Mean score difference per game when two bots shared a table "
        "(row bot's score minus column bot's), with a 95% confidence interval."
    )
    matrix = pd.DataFrame(
        {
            "bot": [p.bot_a for p in both],
            "opponent": [p.bot_b for p in both],
            "mean": [p.mean_diff for p in both],
            "games": [p.games for p in both],
            "low": [p.ci_low for p in both],
            "high": [p.ci_high for p in both],
        }
    )
    st.vega_lite_chart(spec=_head_to_head_spec(matrix, tuple(tournament.entrants)), width="content")

    def verdict(low: float, high: float) -> str:
        if math.isnan(low):
            return "one board: no interval"
        if low > 0:
            return "A better"
        if high < 0:
            return "B better"
        return "not significant"

    cells.table(
        pd.DataFrame(
            {
                "Bot A": [p.bot_a for p in pairs],
                "Bot B": [p.bot_b for p in pairs],
                "Games together": [p.games for p in pairs],
                "Boards": [p.boards for p in pairs],
                "Mean A - B": [p.mean_diff for p in pairs],
                "95% CI low": [p.ci_low for p in pairs],
                "95% CI high": [p.ci_high for p in pairs],
                "Verdict": [verdict(p.ci_low, p.ci_high) for p in pairs],
            }
        ),
        hide_index=True,
        column_config={
            name: st.column_config.NumberColumn(format="%+.2f")
            for name in ("Mean A - B", "95% CI low", "95% CI high")
        },
    )
    st.caption(
        "A duplicate board plays the same deals under all 6 seatings, so its games are not "
        "independent: the interval is Student's t over boards (each board's mean difference "
        "is one observation)."
    )

with seats:
    made = data.contract_stats(url, tournament.id, version)
    stats = data.record_stats(url, tournament.id, version)
    deltas = {(bot, contract): mean for bot, contract, _hands, mean in stats.deltas}
    st.subheader("Contracts")
    rows: dict[str, dict[str, object]] = {}
    for m in made:
        row = rows.setdefault(m.bot, {"Bot": m.bot})
        row[f"Hands {m.contract}"] = m.hands
        row[f"Made {m.contract}"] = m.made_rate
        row[f"Δ {m.contract}"] = deltas.get((m.bot, m.contract))
    columns = ["Bot"] + [f"{k} {c}" for c in (9, 5, 2) for k in ("Hands", "Made", "Δ")]
    cells.table(
        pd.DataFrame(list(rows.values()), columns=columns),
        hide_index=True,
        column_config={
            **{
                f"Made {c}": st.column_config.NumberColumn(
                    format="percent", help=f"Share of hands in the {c} seat where the bot made it"
                )
                for c in (9, 5, 2)
            },
            **{
                f"Δ {c}": st.column_config.NumberColumn(
                    format="%+.2f", help=f"Mean delta in the {c} seat: tricks won minus {c}"
                )
                for c in (9, 5, 2)
            },
        },
    )
    st.caption(f"Hands, made rates, mean deltas (Δ) and trump calls: all {stats.games} games.")
    st.subheader("Trump calls (as dealer)")
    calls = pd.DataFrame(list(stats.trumps), columns=["Bot", "Trump", "Hands"])
    if calls.empty:
        st.write("No trump call yet.")
    else:
        table = calls.pivot_table(
            index="Bot", columns="Trump", values="Hands", aggfunc="sum", fill_value=0
        )
        table = table.reindex(columns=[t for t in TRUMPS if t in table.columns])
        shares = table.div(table.sum(axis=1), axis=0)
        cells.table(
            shares.reset_index(),
            hide_index=True,
            column_config={t: st.column_config.NumberColumn(format="percent") for t in TRUMPS},
        )
        st.caption("Share of each call among the hands the bot dealt (NT = no trump).")

with faults:
    counts = data.fault_counts(url, tournament.id, version)
    cells.table(
        pd.DataFrame(
            {
                "Bot": [c.bot for c in counts],
                "Games": [c.games for c in counts],
                "Faulted games": [c.faulted_games for c in counts],
                "Fault rate": [c.faulted_games / c.games if c.games else 0.0 for c in counts],
            }
        ),
        hide_index=True,
        column_config={"Fault rate": st.column_config.NumberColumn(format="percent")},
    )
    # Detail only for each bot's owner and organisers (the cache is per viewer).
    details = data.faults(url, tournament.id, None, 500, Viewer.of(auth.visitor()))
    if details:
        kinds = pd.DataFrame({"Bot": [f.bot for f in details], "Kind": [f.kind for f in details]})
        st.subheader("By kind")
        cells.table(
            kinds.value_counts().rename("Faults").reset_index(),
            hide_index=True,
        )
        st.subheader("Latest faults")
        cells.table(
            pd.DataFrame(
                {
                    "Game": [f.game_id for f in details],
                    "#": [f.schedule_index for f in details],
                    "Bot": [f.bot for f in details],
                    "Seat": [f.seat for f in details],
                    "Hand": [f.hand for f in details],
                    "Decision": [f.decision for f in details],
                    "Kind": [f.kind for f in details],
                    "Detail": [_detail(f, tournament) for f in details],
                }
            ),
            hide_index=True,
        )
        st.caption("From the records of the latest 500 faulted games; replay one on **Replays**.")
    else:
        st.success("No fault in this tournament.")
