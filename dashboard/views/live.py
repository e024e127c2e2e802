"""Live: the games being played now, and one followed decision by decision.

Everything shown comes from the live table (:mod:`arena.storage.live`), which holds only
each game's public view (:func:`arena.game.public.public_view`): contracts, trump once
called, the exchange plan with counts, the cards played, tricks and scores. No hand, kitty,
discard, show or exchanged card is ever stored there, so none can reach this page
(docs/live.md). A finished game's record is not shown here at all: the page links to
Replays, which applies the held-back rule. The page polls in a fragment, so a decision
shows within about a second and a half of being taken. Bot and tournament names are
hostile text: escaped for HTML and for Markdown.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from arena.storage.live import LiveRow
from dashboard import cells, data
from dashboard.text import md

POLL_S = 1.0
# Seconds between two refreshes of the page's live part (the worker sends a game's view at
# most every 0.5 s, the dashboard caches it 0.25 s: a decision shows within about 1.75 s).
SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RED = {"H", "D"}
_FOLLOW = "_live_follow"

GameKey = tuple[str, int]

st.title("Live")
st.caption(
    "Games being played now, as every spectator may see them: no hand, kitty, discard or "
    "exchanged card is shown until the game's deal group is complete (then on **Replays**)."
)
url = data.database_url()


def card_html(card: object) -> str:
    """One card, as rank and suit symbol (an unknown text is shown escaped, as is)."""
    text = str(card)
    if len(text) == 2 and text[1] in SUITS:
        colour = "#c62828" if text[1] in RED else "inherit"
        return f'<span style="color:{colour}">{html.escape(text[0])}{SUITS[text[1]]}</span>'
    return html.escape(text)


def cards_html(cards: Sequence[object]) -> str:
    return " ".join(card_html(c) for c in cards) or "&mdash;"


def _name(players: Sequence[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(players):
        return f"{html.escape(players[seat])} (seat {seat})"
    return "&mdash;"


def _seat_table(view: dict[str, Any], players: Sequence[str]) -> str:
    rows = []
    for seat in range(3):
        contract = view["contracts"][seat]
        won = view["tricks_won"][seat]
        score = view["scores"][seat]
        rows.append(
            f"<tr><td>{_name(players, seat)}</td><td>{int(contract)}</td>"
            f"<td>{int(won)}</td><td>{int(score):+d}</td></tr>"
        )
    head = "<tr><th>Seat</th><th>Contract</th><th>Tricks</th><th>Score before hand</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def game_html(row: LiveRow) -> str:
    """The followed game's public view as HTML, every text escaped."""
    view, players = row.state, row.players
    parts = [
        f"<p><b>Hand {int(view['hand_number'])}</b> &middot; dealer "
        f"{_name(players, view['dealer'])} &middot; phase {html.escape(str(view['phase']))}"
        f" &middot; to act: {_name(players, view['to_act'])}</p>",
        _seat_table(view, players),
    ]
    trump = view.get("trump")
    parts.append("<p>Trump: " + (html.escape(str(trump)) if trump else "not called yet") + "</p>")
    legs = view.get("exchange") or []
    if legs:
        items = "".join(
            f"<li>{_name(players, leg['giver'])} &rarr; {_name(players, leg['receiver'])}: "
            f"{int(leg['count'])} card(s), {html.escape(str(leg['status']))}</li>"
            for leg in legs
        )
        parts.append(f"<p>Exchange plan (counts only):</p><ul>{items}</ul>")
    current = view.get("current_trick")
    if current is not None:
        parts.append(
            f"<p>Current trick, led by {_name(players, current['leader'])}: "
            f"<span class='live-trick'>{cards_html(current['cards'])}</span></p>"
        )
    tricks = view.get("tricks") or []
    if tricks:
        items = "".join(
            f"<li>{cards_html(t['cards'])} &rarr; {_name(players, t['winner'])}</li>"
            for t in tricks
        )
        parts.append(f"<p>Tricks of this hand:</p><ol>{items}</ol>")
    for hand in view.get("history") or []:
        scores = ", ".join(f"{int(s):+d}" for s in hand["scores"])
        parts.append(
            f"<p>Hand {int(hand['number'])}: trump {html.escape(str(hand['trump']))}, "
            f"tricks {'/'.join(str(int(t)) for t in hand['tricks_won'])}, scores {scores}</p>"
        )
    if view.get("result"):
        parts.append("<p><b>Game over</b>: its record is being stored.</p>")
    return "\n".join(parts)


def _key(row: LiveRow) -> GameKey:
    return (row.tournament, row.schedule_index)


def _label(row: LiveRow) -> str:
    players = " vs ".join(row.players)
    table = "" if row.table_index is None else f" table {row.table_index}"
    return md(f"{row.tournament}{table} game {row.schedule_index}: {players}")


def _overview(rows: Sequence[LiveRow]) -> pd.DataFrame:
    """The live games as a table (cells are plain text: no Markdown, no HTML)."""
    return pd.DataFrame(
        [
            {
                "Tournament": r.tournament,
                "Table": r.table_index,
                "Game": r.schedule_index,
                "Bots": " / ".join(r.players),
                "Hand": r.state.get("hand_number"),
                "Scores": " / ".join(str(s) for s in r.state.get("scores", [])),
                "Updated (s ago)": round(r.seconds_since_update, 1),
            }
            for r in rows
        ]
    )


def _follow(key: GameKey | None) -> None:
    st.session_state[_FOLLOW] = key


@st.fragment(run_every=POLL_S)
def live_part() -> None:
    """The list of live games and the followed one, refreshed every :data:`POLL_S`."""
    rows = data.live_games(url)
    followed: GameKey | None = st.session_state.get(_FOLLOW)
    keys = [_key(r) for r in rows]
    if followed is None and rows:
        followed = keys[0]
        _follow(followed)
    if not rows:
        st.info("No game is being played now. Games show here while a tournament runs.")
    else:
        cells.table(_overview(rows), hide_index=True, use_container_width=True)
        options: list[GameKey | None] = list(keys)
        if followed not in keys:
            options.insert(0, followed)
        labels = {k: _label(r) for k, r in zip(keys, rows, strict=True)}
        choice = st.selectbox(
            "Follow",
            options,
            index=options.index(followed),
            format_func=lambda k: labels.get(k) or "the game followed before (ended)",
        )
        if choice != followed:
            _follow(choice)
            followed = choice
    by_key = dict(zip(keys, rows, strict=True))
    if followed is None:
        return
    row = by_key.get(followed)
    tournament, index = followed
    if row is None:
        st.success(f"Game {index} of {md(tournament)} has ended.")
        st.page_link(
            "views/replays.py",
            label="Its replay (once its deal group is complete)",
            icon=":material/playing_cards:",
            query_params={"tournament": tournament},
        )
        return
    st.subheader(f"{md(tournament)}: game {index}")
    st.html(f"<div class='live-game'>{game_html(row)}</div>")
    st.caption(f"{row.decisions} update(s); last {row.seconds_since_update:.1f} s ago.")


live_part()
