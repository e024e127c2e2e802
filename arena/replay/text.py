"""A readable text replay of a game record (``arena replay``): every hand, deal to score."""

from __future__ import annotations

from typing import Any

from arena.game.cards import format_cards, parse_cards


def _cards(texts: list[str]) -> str:
    return format_cards(parse_cards(texts)) or "-"


def replay_text(record: dict[str, Any]) -> str:
    """The whole game as text, hidden facts included (the referee's view)."""
    players = record["players"]
    lines = [
        f"{record.get('game_id', 'game')}: {record['ruleset']}, seed {record['seed']}, "
        f"first dealer seat {record['first_dealer']}",
    ]
    lines += [f"  seat {i}: {name}" for i, name in enumerate(players)]
    for hand in record["hands"]:
        contracts = "/".join(str(c) for c in hand["contracts"])
        lines.append("")
        lines.append(f"Hand {hand['number']}: dealer seat {hand['dealer']}, contracts {contracts}")
        for seat, cards in enumerate(hand["deal"]):
            lines.append(f"  deal seat {seat}: {_cards(cards)}")
        lines.append(f"  kitty: {_cards(hand['kitty'])}")
        for leg in hand["exchange"]:
            lines.append(
                f"  exchange: seat {leg['giver']} gives {_cards(leg['given'])} to seat "
                f"{leg['receiver']}, gets back {_cards(leg['returned'])}"
            )
        lines.append(f"  trump: {hand['trump']}")
        for show in hand["shown"]:
            lines.append(f"  shown to seat {show['to']}: {_cards(show['cards'])}")
        lines.append(f"  discards: {_cards(hand['discards'])}")
        for number, trick in enumerate(hand["tricks"], start=1):
            played = ", ".join(
                f"{(trick['leader'] + i) % 3}:{card}" for i, card in enumerate(trick["cards"])
            )
            lines.append(f"  trick {number:2d}: {played} -> seat {trick['winner']}")
        lines.append(
            f"  tricks {hand['tricks_won']}, deltas {hand['deltas']}, scores {hand['scores']}"
        )
    for fault in record.get("faults", []):
        lines.append(
            f"fault: seat {fault['seat']} hand {fault['hand']} {fault['decision']}: "
            f"{fault['kind']} ({fault['detail']})"
        )
    result = record.get("result")
    if result:
        winners = ", ".join(f"seat {w} ({players[w]})" for w in result["winners"])
        lines.append("")
        lines.append(
            f"Result: {winners} after {result['hands_played']} hands ({result['reason']}); "
            f"scores {result['scores']}"
        )
    return "\n".join(lines)
