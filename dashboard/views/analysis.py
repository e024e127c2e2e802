"""Analysis: a bot's duplicate results, beside every bot that held the same cards.

Travellers per board and seat, the bot's biggest losses and gains against the field, two
games on the same cards side by side where they part, and the measures by contract and by
decision kind (docs/analysis.md). The games come from :mod:`arena.storage.travellers`:
records as the visitor may read them, and none whose cards are still held back. Every
bot-chosen name reaches the screen through a dataframe (shown as text) or :func:`md`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from arena.analysis import Analysis, Traveller, analyse
from arena.analysis.difference import anonymous
from arena.analysis.measures import Pair
from arena.replay.steps import Replay, build_replay
from arena.storage import StorageError, TournamentInfo
from arena.storage.privacy import Viewer
from arena.storage.travellers import duplicate_games
from dashboard import auth, cells, data
from dashboard.render import table_html
from dashboard.text import md

st.title("Analysis")
url = data.database_url()
visitor = auth.visitor()
viewer = Viewer.of(visitor)
STEPS_AROUND = 4  # steps listed before and after the first difference


@st.cache_resource(ttl=30, max_entries=8, show_spinner="Comparing games on the same cards...")
def analysis_of(
    url: str, tournament: str, bot: str, viewer: Viewer, stored: int, status: str
) -> Analysis:
    """The analysis, kept per viewer (the records inside are redacted for it); *stored*
    and *status* are in the key so that a new game, or the end of the tournament (which
    releases held-back games), makes a new entry."""
    del stored, status

    def held(info: TournamentInfo, index: int) -> bool:
        return data.held_back(url, info, index) is not None

    gathered = duplicate_games(data.engine(), tournament, bot, viewer, held)
    return analyse(
        gathered.games,
        gathered.versions,
        bot=gathered.bot,
        tournament=gathered.tournament.name,
        held_back=gathered.held_back,
    )


def bot_names(tournament: TournamentInfo) -> list[str]:
    """The tournament's entrants' bot names (a label is ``name@version``)."""
    return list(dict.fromkeys(label.rsplit("@", 1)[0] for label in tournament.entrants))


def signed(value: float | None) -> str:
    return cells.text(value, lambda v: f"{v:+.2f}")


def traveller_title(t: Traveller) -> str:
    tables = ", ".join(str(x) for x in sorted({r.game.table_index for r in t.rows}))
    return f"board {t.board_index} · seat {t.seat} · table(s) {tables}"


def traveller_table(t: Traveller) -> None:
    mean = t.field_mean()
    cells.table(
        pd.DataFrame(
            {
                "This bot": ["●" if r.mine else "" for r in t.rows],
                "Game": [r.game.game_id for r in t.rows],
                "Table": [r.game.table_index for r in t.rows],
                "Seating": [r.game.seating_index for r in t.rows],
                "Bot": [r.player for r in t.rows],
                "Score": [r.score for r in t.rows],
                "Won": [r.won for r in t.rows],
                "Contracts": ["/".join(str(c) for c in r.contracts) for r in t.rows],
                "Tricks": ["/".join(str(x) for x in r.tricks) for r in t.rows],
                "Swing": [
                    signed(r.score - mean if r.mine and mean is not None else None) for r in t.rows
                ],
            }
        ),
        hide_index=True,
    )
    st.caption(
        "Field mean score on these cards: " + ("no field" if mean is None else signed(mean)) + "."
    )


def swings_section(result: Analysis) -> None:
    st.subheader("Biggest losses and gains against the field")
    st.caption("Score minus the mean score of the other bots that held the same cards.")
    losses = [s for s in result.swings if s.swing < 0][:10]
    gains = [s for s in reversed(result.swings) if s.swing > 0][:10]
    left, right = st.columns(2)
    for column, title, shown in ((left, "Losses", losses), (right, "Gains", gains)):
        with column:
            st.markdown(f"**{title}**")
            if not shown:
                st.caption("None.")
                continue
            cells.table(
                pd.DataFrame(
                    {
                        "Swing": [signed(s.swing) for s in shown],
                        "Game": [s.row.game.game_id for s in shown],
                        "Board": [s.traveller.board_index for s in shown],
                        "Seat": [s.traveller.seat for s in shown],
                        "Score": [s.row.score for s in shown],
                        "Field mean": [signed(s.field_mean) for s in shown],
                    }
                ),
                hide_index=True,
            )


def measures_section(result: Analysis) -> None:
    st.subheader("By contract")
    cells.table(
        pd.DataFrame(
            {
                "Contract": [c.contract for c in result.contracts],
                "Hands": [c.hands for c in result.contracts],
                "Mean delta": [signed(c.mean_delta) for c in result.contracts],
                "Field mean delta": [signed(c.field_mean_delta) for c in result.contracts],
                "Edge": [signed(c.edge) for c in result.contracts],
            }
        ),
        hide_index=True,
    )
    st.caption(
        "Delta = tricks minus contract, in the hands the bot played beside the field's "
        "games that reached the same hand on the same cards."
    )
    st.subheader("By decision kind")
    cells.table(
        pd.DataFrame(
            {
                "Kind": [k.kind for k in result.kinds],
                "Same choice": [k.agreed for k in result.kinds],
                "Other choice": [k.differed for k in result.kinds],
                "Agreement": [
                    cells.text(k.agreement, lambda a: f"{100 * a:.0f}%") for k in result.kinds
                ],
                "Hand swing when other": [signed(k.mean_hand_swing) for k in result.kinds],
            }
        ),
        hide_index=True,
    )
    st.caption(
        "Choices in identical positions (same cards, same history) as a field game; the "
        "first different choice of a pair, and the bot's delta minus the other's in that hand."
    )


def side_by_side(pair: Pair) -> None:
    mine, other = pair.mine.game, pair.other.game
    d = pair.difference
    if d is None:
        st.success("These two games are identical, step by step.")
        return
    who = "this seat" if pair.differed_by_seat else f"seat {d.seat}"
    st.markdown(f"First difference at **step {d.index}** (hand {d.hand}, {md(d.kind)}, {md(who)}).")
    first = build_replay(mine.record, game=str(mine.game_id))
    second = build_replay(other.record, game=str(other.game_id))
    seat = pair.traveller.seat
    st.caption(
        f"Each game's table just after step {d.index}, as seat {seat} saw it; every step "
        "before it was the same in both games."
    )
    left, right = st.columns(2)
    for column, game, replay in ((left, mine, first), (right, other, second)):
        with column:
            st.markdown(f"**{md(game.players[seat])}** (game {game.game_id})")
            if d.index < len(replay.steps):
                st.html(table_html(replay.view(d.index, seat)))
    low, high = max(0, d.index - STEPS_AROUND), d.index + STEPS_AROUND + 1
    rows = range(low, min(high, max(len(first.steps), len(second.steps))))
    cells.table(
        pd.DataFrame(
            {
                "Step": list(rows),
                "": ["▶" if i == d.index else "" for i in rows],
                "This bot's game": [_step(first, i, seat) for i in rows],
                "Other game": [_step(second, i, seat) for i in rows],
            }
        ),
        hide_index=True,
    )


def _step(replay: Replay, index: int, seat: int) -> str:
    """Step *index* as the traveller's seat may read it (names taken out)."""
    if index >= len(replay.steps):
        return ""
    return anonymous(replay.steps[index].text(seat), replay.players)


picked = data.pick_tournament(visitor)
if picked is None:
    st.stop()
tournament = picked
names = bot_names(tournament)
if not names:
    st.info("This tournament has no entrants.")
    st.stop()
wanted = st.query_params.get("bot")
bot = st.selectbox("Bot", names, index=names.index(wanted) if wanted in names else 0)
try:
    result = analysis_of(
        url, tournament.name, bot, viewer, tournament.games_stored, tournament.status
    )
except StorageError as exc:
    st.info(md(str(exc)))
    st.stop()
if result.held_back:
    st.caption(
        f"{result.held_back} game(s) of {md(result.bot)} are left out: their cards are held "
        "back until the other games dealt alike are played."
    )
if not result.travellers:
    st.info(f"No games of {md(result.bot)} in {md(result.tournament)} to analyse yet.")
    st.stop()
st.markdown(
    f"**{md(result.bot)}** in **{md(result.tournament)}**: "
    f"{sum(len(t.mine) for t in result.travellers)} game seat(s) on "
    f"{len(result.travellers)} traveller(s) (the same cards in the same seat)."
)

st.subheader("Travellers")
titles = [traveller_title(t) for t in result.travellers]
title = st.selectbox("Board and seat", titles)
traveller = result.travellers[titles.index(title)]
traveller_table(traveller)

swings_section(result)
measures_section(result)

st.subheader("Side by side")
options = [p for p in result.pairs if p.traveller is traveller]
if not options:
    st.caption("No other bot held these cards in this seat.")
else:
    labels = [
        f"game {p.mine.game.game_id} vs game {p.other.game.game_id} ({p.other.player})"
        for p in options
    ]
    label = st.selectbox("Compare", labels)
    side_by_side(options[labels.index(label)])
