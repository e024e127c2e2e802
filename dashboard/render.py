"""HTML for cards and the card table (``st.html``): suits in four colours, backs for hidden cards.

Pure functions from :class:`arena.replay.steps.TableView` to HTML text, so they can be
tested without a browser. Everything user-supplied (bot names) is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Final

from arena.game.cards import Card, Trump
from arena.replay.steps import SeatPanel, TableView, TrickPanel
from arena.viewer import table_css

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES: Final = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
# Four-colour deck: every suit distinct at a glance, hearts and diamonds never confused.
SUIT_COLOURS: Final = {"S": "#1a1a1a", "H": "#c8102e", "D": "#0b5cad", "C": "#1e7b34"}
_DISPLAY_ORDER: Final = "SHCD"  # alternating colours, as players sort a hand

CSS: Final = f"<style>\n{table_css()}</style>\n"
"""The card table's style (arena/viewer/table.css, which the replay viewer uses too)."""


def _rank_text(card: Card) -> str:
    text = str(card)[0]
    return "10" if text == "T" else text


def card_html(card: Card, *, trump: Trump | None = None, extra: str = "") -> str:
    """One face-up card; a trump card gets a gold frame."""
    suit = str(card)[1]
    classes = "card"
    if trump is not None and trump.value == suit:
        classes += " trump"
    if extra:
        classes += f" {extra}"
    return (
        f'<span class="{classes}" style="color:{SUIT_COLOURS[suit]}" '
        f'title="{escape(str(card))}" data-card="{card}">'
        f'<span>{_rank_text(card)}</span><span class="suit">{SUIT_SYMBOLS[suit]}</span></span>'
    )


def backs_html(count: int, *, small: bool = True) -> str:
    """*count* face-down cards."""
    if count <= 0:
        return '<span class="hidden">no cards left</span>'
    size = " small" if small else ""
    backs = "".join(f'<span class="card back{size}"></span>' for _ in range(max(0, count)))
    return f'{backs}<span class="hidden" style="margin-left:0.7em">{count} hidden</span>'


def sorted_cards(cards: Iterable[Card], trump: Trump | None = None) -> list[Card]:
    """Cards grouped by suit (trumps first), high to low, as a player holds them."""
    order = _DISPLAY_ORDER
    if trump is not None and trump is not Trump.NT:
        order = trump.value + order.replace(trump.value, "")
    return sorted(cards, key=lambda c: (order.index(str(c)[1]), -c.rank))


def cards_html(cards: Sequence[Card], trump: Trump | None = None, *, sort: bool = True) -> str:
    """A row of face-up cards (``-`` when empty)."""
    if not cards:
        return '<span class="hidden">none</span>'
    shown = sorted_cards(cards, trump) if sort else list(cards)
    return "".join(card_html(c, trump=trump) for c in shown)


def trump_text(trump: Trump | None) -> str:
    """The trump call as a coloured symbol."""
    if trump is None:
        return '<span class="hidden">not called yet</span>'
    if trump is Trump.NT:
        return "<b>no trump</b>"
    suit = trump.value
    return (
        f'<b style="color:{SUIT_COLOURS[suit]};font-size:1.3em">{SUIT_SYMBOLS[suit]}</b> '
        f"{SUIT_NAMES[suit]}"
    )


def _seat_html(panel: SeatPanel, view: TableView, area: str) -> str:
    badges = f'<span class="badge">contract {panel.contract}</span>'
    badges += f'<span class="badge">tricks {panel.tricks_won}</span>'
    if panel.is_dealer:
        badges += '<span class="badge dealer">dealer</span>'
    if panel.to_act:
        badges += '<span class="badge act">to act</span>'
    if view.perspective == panel.seat:
        badges += '<span class="badge view">this view</span>'
    if panel.cards is not None:
        cards = cards_html(panel.cards, view.trump)
    else:
        cards = backs_html(panel.card_count)
    acting = " acting" if panel.to_act else ""
    return (
        f'<div class="seat{acting}" style="grid-area:{area}" data-seat="{panel.seat}">'
        f'<div class="head"><b>Seat {panel.seat}</b> {escape(panel.player)}{badges}</div>'
        f'<div class="cards">{cards}</div></div>'
    )


def _trick_html(trick: TrickPanel | None, view: TableView, areas: dict[int, str]) -> str:
    if trick is None:
        title = f"Hand {view.hand_number}: no card played yet"
        by_seat: dict[int, Card] = {}
        winner = None
    else:
        by_seat = {(trick.leader + i) % 3: c for i, c in enumerate(trick.cards)}
        winner = trick.winner
        title = f"Trick {trick.number}, led by seat {trick.leader}"
        if winner is not None:
            title += f": <b>seat {winner} wins</b>"
    slots = {"left": "2 / 1", "right": "2 / 3", "bottom": "3 / 2"}  # row / column
    html = f'<div class="title">{title}</div>'
    for seat, area in areas.items():
        card = by_seat.get(seat)
        inner = (
            card_html(card, trump=view.trump, extra="win" if seat == winner else "")
            if card is not None
            else '<span class="card empty"></span>'
        )
        row, column = slots[area].split(" / ")
        html += (
            f'<div class="slot" style="grid-row:{row};grid-column:{column}">'
            f"{inner}<div>seat {seat}</div></div>"
        )
    return f'<div class="trick">{html}</div>'


def table_html(view: TableView) -> str:
    """The card table: the viewer's seat at the bottom, the next seats left and right."""
    bottom = 0 if view.perspective is None else view.perspective
    areas = {bottom: "bottom", (bottom + 1) % 3: "left", (bottom + 2) % 3: "right"}
    seats = "".join(_seat_html(view.seats[s], view, area) for s, area in areas.items())
    return (
        f'{CSS}<div class="a952"><div class="table">{seats}'
        f"{_trick_html(view.trick, view, areas)}</div></div>"
    )


def _row(label: str, value: str) -> str:
    return f"<tr><td>{label}</td><td>{value}</td></tr>"


def info_html(view: TableView) -> str:
    """The side panel: trump, contracts, scores, kitty, discards, exchange, shows."""
    rows = [
        _row("Hand", f"{view.hand_number}, dealer seat {view.dealer}"),
        _row("Contracts", " / ".join(f"seat {s}: {c}" for s, c in enumerate(view.contracts))),
        _row(
            "Scores" if view.summary else "Scores before",
            " / ".join(f"{s:+d}" for s in view.scores),
        ),
        _row("Trump", trump_text(view.trump)),
    ]
    if view.kitty is not None:
        state = "taken by the dealer" if view.kitty_taken else "face down"
        rows.append(_row("Kitty", f"{cards_html(view.kitty, view.trump)}<br>({state})"))
    else:
        rows.append(
            _row(
                "Kitty",
                '<span class="hidden">taken by the dealer, unseen</span>'
                if view.kitty_taken
                else backs_html(4),
            )
        )
    if view.discards is not None:
        rows.append(_row("Discards", cards_html(view.discards, view.trump, sort=False)))
    elif view.discard_done:
        rows.append(_row("Discards", '<span class="hidden">4 cards, face down</span>'))
    for leg in view.exchange:
        given = (
            cards_html(leg.given, view.trump, sort=False)
            if leg.given is not None
            else '<span class="hidden">hidden</span>'
            if leg.status != "planned"
            else '<span class="hidden">not yet</span>'
        )
        returned = (
            cards_html(leg.returned, view.trump, sort=False)
            if leg.returned is not None
            else '<span class="hidden">hidden</span>'
            if leg.status == "done"
            else '<span class="hidden">not yet</span>'
        )
        rows.append(
            _row(
                f"Seat {leg.giver} &rarr; seat {leg.receiver}",
                f"{leg.count} card(s), {leg.status}<br>given: {given}<br>returned: {returned}",
            )
        )
    for to, cards in view.shown:
        rows.append(_row(f"Shown to seat {to}", cards_html(cards, view.trump)))
    if view.summary is not None:
        s = view.summary
        rows.append(
            _row(
                "Hand result",
                "tricks "
                + " / ".join(str(t) for t in s.tricks_won)
                + "<br>deltas "
                + " / ".join(f"{d:+d}" for d in s.deltas),
            )
        )
    if view.result is not None:
        winners = ", ".join(f"seat {w}" for w in view.result.winners)
        rows.append(_row("Game over", f"{winners} ({view.result.reason.value})"))
    return f'{CSS}<div class="a952"><div class="info"><table>{"".join(rows)}</table></div></div>'
