"""Proves the rules oracle right before it is trusted to judge the engine.

Why: an oracle that is wrong would pass a wrong engine or fail a right one.  These
tests pin the oracle's helpers to the worked examples 5 to 10 of docs/rules.md section 9
(exact cards given there), check whole hands built from those examples through
``check_hand``, and check whole random games through ``check_record``.

The hands and games are produced by a small record *generator* written here on
purpose with the other algorithms the spec allows (batch return rule of docs/rules.md 4.6,
the reference end check of 7.6 copied from the spec, split-mode givens kept out of the
receiver's hand until RETURN), so that the generator and the oracle do not share code.
Finally, single alterations of valid records must be reported at the right place, and
garbage must give discrepancies, never exceptions.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from tests.presets import every_preset

from . import rules_oracle as oracle

RANKS = "23456789TJQKA"
SUITS = "SHDC"
DECK = [r + s for s in SUITS for r in RANKS]

# docs/rules.md 2.1 / 2.2, as a record stores them (JSON values): classic, then what differs.
CLASSIC: dict[str, Any] = {
    "contracts": [9, 5, 2],
    "allow_no_trump": True,
    "first_hand_steps": ["TRUMP", "KITTY"],
    "later_hand_steps": ["EXCHANGE", "TRUMP", "KITTY"],
    "first_leader": "left_of_dealer",
    "giver_priority": "upcoming_contract",
    "exchange_mandatory": True,
    "dealer_show": False,
    "target": 10,
    "negative_target": None,
    "negative_role": None,
    "winner_rule": "highest",
    "tie_rule": "extra_hands",
    "max_hands": 99,
    "first_dealer": "random",
}
PM15: dict[str, Any] = {"target": 15, "negative_target": -15, "negative_role": "ends_game"}
PRESETS: dict[str, dict[str, Any]] = {
    "classic": CLASSIC,
    "classic-show": {
        **CLASSIC,
        "allow_no_trump": False,
        "giver_priority": "most_overtricks",
        "dealer_show": True,
    },
    "classic-pm15": {**CLASSIC, **PM15},
    "nine-two-five": {
        **CLASSIC,
        **PM15,
        "contracts": [9, 2, 5],
        "later_hand_steps": ["TRUMP", "EXCHANGE", "KITTY"],
        "first_leader": "dealer",
    },
    "catalan": {**CLASSIC, "allow_no_trump": False, "dealer_show": True, "tie_rule": "draw"},
    "catalan-plus-minus": {
        **CLASSIC,
        **PM15,
        "contracts": [9, 2, 5],
        "allow_no_trump": False,
        "first_hand_steps": ["KITTY", "TRUMP"],
        "later_hand_steps": ["KITTY", "GIVE", "TRUMP", "RETURN"],
        "negative_role": "objective",
        "winner_rule": "largest_excess",
        "tie_rule": "positive_side",
    },
}


def rules_of(preset: str, **overrides: Any) -> oracle.Rules:
    """Parsed oracle rules for a preset (optionally altered)."""
    rules, problems = oracle.parse_rules({**PRESETS[preset], **overrides})
    assert problems == []
    assert rules is not None
    return rules


def cards(text: str) -> list[str]:
    """``"KS 9S"`` -> ``["KS", "9S"]``."""
    return text.split()


# ---------------------------------------------------------------------------
# Independent record generator (not shared with the oracle)
# ---------------------------------------------------------------------------


def batch_returns(hand: set[str], given: Sequence[str]) -> list[str]:
    """docs/rules.md 4.6 steps 1-3: per suit, the k highest cards of hand + given come back."""
    pool = hand | set(given)
    out: list[str] = []
    for s in SUITS:
        k = sum(1 for c in given if c[1] == s)
        suited = sorted((c for c in pool if c[1] == s), key=lambda c: RANKS.index(c[0]))
        out += suited[len(suited) - k :] if k else []
    return out


def ref_winner(played: Sequence[str], leader: int, trump: str) -> int:
    """Trick winner, written independently of the oracle (rule 17)."""
    trumps = [i for i, c in enumerate(played) if trump != "NT" and c[1] == trump]
    candidates = trumps or [i for i, c in enumerate(played) if c[1] == played[0][1]]
    best = max(candidates, key=lambda i: RANKS.index(played[i][0]))
    return (leader + best) % 3


def ref_plan(prev: Sequence[int], contracts: Sequence[int], priority: str) -> list[list[int]]:
    """Exchange legs [giver, receiver, count] (4.2, 4.4), written independently."""
    up = [s for s in range(3) if prev[s] > 0]
    down = [s for s in range(3) if prev[s] < 0]
    if len(up) == 2:
        if priority == "most_overtricks" and prev[up[0]] != prev[up[1]]:
            up.sort(key=lambda s: -prev[s])
        else:
            up.sort(key=lambda s: -contracts[s])
        return [[g, down[0], prev[g]] for g in up]
    return [[u, v, -prev[v]] for u in up for v in down]


def ref_end_check(
    rs: dict[str, Any], scores: Sequence[int], hands_played: int, overtime: bool
) -> tuple[bool, list[int], str | None, bool]:
    """docs/rules.md 7.6 reference algorithm, transcribed from the spec."""
    t, n = rs["target"], rs["negative_target"]
    triggered = any(x >= t for x in scores) or (n is not None and any(x <= n for x in scores))
    if overtime or triggered:
        if rs["winner_rule"] == "highest":
            top = max(scores)
            w = [i for i, x in enumerate(scores) if x == top]
            if len(w) == 1:
                return True, w, ("overtime" if overtime else "target"), False
            if rs["tie_rule"] == "draw":
                return True, w, "draw", False
            overtime = True
        else:
            cand = []
            for i, x in enumerate(scores):
                if x >= t:
                    cand.append((x - t, 1, i))
                elif n is not None and rs["negative_role"] == "objective" and x <= n:
                    cand.append((n - x, 0, i))
            best = max(c[0] for c in cand)
            tied = [c for c in cand if c[0] == best]
            if len(tied) > 1 and rs["tie_rule"] == "positive_side":
                tied = [c for c in tied if c[1] == 1] or tied
            return True, [c[2] for c in tied], ("target" if len(tied) == 1 else "draw"), False
    if hands_played >= rs["max_hands"]:
        top = max(scores)
        return True, [i for i, x in enumerate(scores) if x == top], "capped", False
    return False, [], None, overtime


class HandBuilder:
    """Plays one hand with random (or imposed) decisions and writes its record entry."""

    def __init__(
        self,
        rs: dict[str, Any],
        number: int,
        dealer: int,
        prev_deltas: Sequence[int],
        prev_scores: Sequence[int],
        rng: random.Random,
    ) -> None:
        self.rs, self.number, self.dealer, self.rng = rs, number, dealer, rng
        self.prev_deltas, self.prev_scores = list(prev_deltas), list(prev_scores)
        c = rs["contracts"]
        self.contracts = [0, 0, 0]
        self.contracts[dealer], self.contracts[(dealer + 1) % 3] = c[0], c[1]
        self.contracts[(dealer + 2) % 3] = c[2]

    def build(
        self,
        deal: list[list[str]] | None = None,
        kitty: list[str] | None = None,
        gives: dict[tuple[int, int], list[str]] | None = None,
        discards: list[str] | None = None,
        legs: list[list[int]] | None = None,
    ) -> dict[str, Any]:
        """Run every step and return the hand as a record entry."""
        if deal is None or kitty is None:
            deal, kitty = self._deal()
        hands = [set(h) for h in deal]
        if legs is None:
            legs = (
                ref_plan(self.prev_deltas, self.contracts, self.rs["giver_priority"])
                if self.number > 1 and any(self.prev_deltas)
                else []
            )
        steps = self.rs["first_hand_steps"] if self.number == 1 else self.rs["later_hand_steps"]
        if not legs:
            steps = [s for s in steps if s in ("TRUMP", "KITTY")]
        given: dict[int, list[str]] = {}
        exchange: list[dict[str, Any]] = [{} for _ in legs]
        shown: list[dict[str, Any]] = []
        trump = "NT"
        chosen_discards: list[str] = []
        for step in steps:
            if step == "TRUMP":
                trump = self.rng.choice(
                    ["S", "H", "D", "C"] + (["NT"] if self.rs["allow_no_trump"] else [])
                )
            elif step == "KITTY":
                hands[self.dealer] |= set(kitty)
                if self.rs["dealer_show"] and legs and all(exchange):
                    shown = self._show(exchange, kitty)
                chosen_discards = discards or self.rng.sample(sorted(hands[self.dealer]), 4)
                hands[self.dealer] -= set(chosen_discards)
            else:
                self._exchange_step(step, hands, legs, gives, given, exchange)
        tricks = self._play(hands, trump)
        won = [sum(1 for t in tricks if t["winner"] == s) for s in range(3)]
        deltas = [won[s] - self.contracts[s] for s in range(3)]
        return {
            "number": self.number,
            "dealer": self.dealer,
            "contracts": self.contracts,
            "deal": deal,
            "kitty": kitty,
            "trump": trump,
            "exchange": exchange,
            "shown": shown,
            "discards": chosen_discards,
            "tricks": tricks,
            "tricks_won": won,
            "deltas": deltas,
            "scores": [self.prev_scores[s] + deltas[s] for s in range(3)],
        }

    def _deal(self) -> tuple[list[list[str]], list[str]]:
        """Fresh shuffle, dealt one at a time from the dealer's left (docs/rules.md 1.3)."""
        shuffled = DECK[:]
        self.rng.shuffle(shuffled)
        deal = [
            [shuffled[i] for i in range(48) if (self.dealer + 1 + i) % 3 == s] for s in range(3)
        ]
        return deal, shuffled[48:]

    def _exchange_step(
        self,
        step: str,
        hands: list[set[str]],
        legs: list[list[int]],
        gives: dict[tuple[int, int], list[str]] | None,
        given: dict[int, list[str]],
        exchange: list[dict[str, Any]],
    ) -> None:
        """EXCHANGE (give then return, giver by giver), GIVE, or RETURN (4.7)."""
        if step == "RETURN":
            for i, leg in enumerate(legs):
                exchange[i] = self._return(hands, leg, given[i])
            return
        for giver in dict.fromkeys(leg[0] for leg in legs):
            self._give(hands, legs, giver, gives, given)
            if step == "EXCHANGE":
                for i, leg in enumerate(legs):
                    if leg[0] == giver:
                        exchange[i] = self._return(hands, leg, given[i])

    def _give(
        self,
        hands: list[set[str]],
        legs: list[list[int]],
        giver: int,
        gives: dict[tuple[int, int], list[str]] | None,
        given: dict[int, list[str]],
    ) -> None:
        """The giver hands over all his legs at once (disjoint sets from his hand)."""
        mine = [i for i, leg in enumerate(legs) if leg[0] == giver]
        pool = self.rng.sample(sorted(hands[giver]), sum(legs[i][2] for i in mine))
        for i in mine:
            g, r, k = legs[i]
            given[i] = gives[(g, r)] if gives else [pool.pop() for _ in range(k)]
            hands[giver] -= set(given[i])

    @staticmethod
    def _return(hands: list[set[str]], leg: list[int], given: list[str]) -> dict[str, Any]:
        """Given cards reach the receiver only now, so split mode equals atomic mode (4.7)."""
        g, r, _ = leg
        back = batch_returns(hands[r], given)
        hands[r] = (hands[r] | set(given)) - set(back)
        hands[g] |= set(back)
        return {"giver": g, "receiver": r, "given": given, "returned": back}

    def _show(self, exchange: list[dict[str, Any]], kitty: list[str]) -> list[dict[str, Any]]:
        """Section 5, written independently of the oracle."""
        events = []
        for leg in exchange:
            if leg["receiver"] == self.dealer:
                low = {
                    c[1]: min(RANKS.index(x[0]) for x in leg["returned"] if x[1] == c[1])
                    for c in leg["returned"]
                }
                seen = [k for k in kitty if k[1] in low and RANKS.index(k[0]) > low[k[1]]]
                events.append({"to": leg["giver"], "cards": seen})
        return events

    def _play(self, hands: list[set[str]], trump: str) -> list[dict[str, Any]]:
        """16 tricks of random legal play."""
        leader = self.dealer if self.rs["first_leader"] == "dealer" else (self.dealer + 1) % 3
        tricks = []
        for _ in range(16):
            played: list[str] = []
            for j in range(3):
                hand = sorted(hands[(leader + j) % 3])
                legal = [c for c in hand if j == 0 or c[1] == played[0][1]] or hand
                played.append(self.rng.choice(legal))
                hands[(leader + j) % 3].discard(played[-1])
            winner = ref_winner(played, leader, trump)
            tricks.append({"leader": leader, "cards": played, "winner": winner})
            leader = winner
        return tricks


def build_game(preset: str, seed: int, **overrides: Any) -> dict[str, Any]:
    """A whole random game record of ``preset`` (JSON round-tripped)."""
    rs = {**PRESETS[preset], **overrides}
    rng = random.Random(seed)
    first_dealer = rng.randrange(3) if rs["first_dealer"] == "random" else rs["first_dealer"]
    hands: list[dict[str, Any]] = []
    deltas, scores, dealer, overtime = [0, 0, 0], [0, 0, 0], first_dealer, False
    while True:
        hand = HandBuilder(rs, len(hands) + 1, dealer, deltas, scores, rng).build()
        hands.append(hand)
        deltas, scores, dealer = hand["deltas"], hand["scores"], (dealer + 1) % 3
        over, winners, reason, overtime = ref_end_check(rs, scores, len(hands), overtime)
        if over:
            break
    record = {
        "format": "arena952.game/1",
        "ruleset": preset,
        "rules": rs,
        "seed": seed,
        "first_dealer": first_dealer,
        "players": ["random_bot@1"] * 3,
        "hands": hands,
        "result": {
            "winners": winners,
            "reason": reason,
            "scores": scores,
            "hands_played": len(hands),
        },
        "faults": [],
    }
    loaded: dict[str, Any] = json.loads(json.dumps(record))
    return loaded


def hand_two(
    preset: str,
    prev_dealer: int,
    prev_deltas: list[int],
    deal: list[list[str]],
    kitty: list[str],
    gives: dict[tuple[int, int], list[str]],
    seed: int = 7,
    **kwargs: Any,
) -> dict[str, Any]:
    """Hand 2 of an example (its hand 1 is summarised by dealer and deltas)."""
    builder = HandBuilder(
        PRESETS[preset], 2, (prev_dealer + 1) % 3, prev_deltas, prev_deltas, random.Random(seed)
    )
    return builder.build(deal=deal, kitty=kitty, gives=gives, **kwargs)


def check_two(
    preset: str, hand: dict[str, Any], prev_dealer: int, prev_deltas: list[int]
) -> list[str]:
    """Oracle verdict on a hand 2 after a hand 1 with the given dealer and deltas."""
    deltas = (prev_deltas[0], prev_deltas[1], prev_deltas[2])
    prev = oracle.PrevHand(prev_dealer, deltas, deltas)
    return oracle.check_hand(
        rules_of(preset), json.loads(json.dumps(hand)), 1, prev_dealer, prev
    ).issues


# ---------------------------------------------------------------------------
# Example 5: one up, one down
# ---------------------------------------------------------------------------

EX5_DEAL = [
    cards("KS 9S 5S AD 7D AC KC QC JC TC 9C 8C 7C 6C 5C 4C"),
    cards("AS QS JS 3S 2S AH KH 6H 5H 4H KD QD 3D 2D 3C 2C"),
    cards("TS 8S 7S 6S QH JH TH 9H 8H 7H 3H JD TD 9D 8D 6D"),
]
EX5_KITTY = cards("4S 2H 5D 4D")


@pytest.mark.parametrize(
    ("given", "expected"),
    [("3S 6H", "KS 6H"), ("2D 3D", "AD 7D"), ("QD 2D", "AD QD"), ("2D QD", "AD QD")],
)
def test_example5_returns(given: str, expected: str) -> None:
    """Each alternative give of Example 5, in any order, gets the stated cards back."""
    back = oracle.returns_one_at_a_time(EX5_DEAL[0], cards(given))
    assert sorted(back) == sorted(cards(expected))
    after = (set(EX5_DEAL[0]) | set(cards(given))) - set(back)
    assert len(after) == 16
    assert sorted(c[1] for c in after) == sorted(c[1] for c in EX5_DEAL[0])


def test_example5_plan_and_whole_hand() -> None:
    """Deltas -2/+2/0 force seat 1 -> seat 0 : 2; the built hand 2 checks clean."""
    assert oracle.plan_exchange([-2, 2, 0], [2, 9, 5], "upcoming_contract") == [oracle.Leg(1, 0, 2)]
    hand = hand_two("classic", 0, [-2, 2, 0], EX5_DEAL, EX5_KITTY, {(1, 0): cards("QD 2D")})
    assert sorted(hand["exchange"][0]["returned"]) == ["AD", "QD"]
    assert check_two("classic", hand, 0, [-2, 2, 0]) == []
    hand["exchange"][0]["returned"] = ["AD", "7D"]
    issues = check_two("classic", hand, 0, [-2, 2, 0])
    assert issues
    assert issues[0].startswith("hand 2, exchange leg 1: seat 0 returned [AD 7D]")


# ---------------------------------------------------------------------------
# Example 6: one up, two down
# ---------------------------------------------------------------------------

EX6_DEAL = [
    cards("AS 8S KH QH 2H AD KD QD JD TD 9D 8D 7D 6D 5D 4D"),
    cards("KS QS AH 9H 7H 3D 2D AC KC QC JC TC 9C 8C 7C 6C"),
    cards("JS TS 9S 7S 6S 5S 3S JH TH 6H 5H 4H 3H 5C 4C 3C"),
]
EX6_KITTY = cards("2S 4S 8H 2C")
EX6_GIVES = {(2, 0): cards("3S 4H 5C"), (2, 1): cards("3H")}


def test_example6_plan_and_returns() -> None:
    """Seat 2 gives 3 to seat 0 and 1 to seat 1; the returns are AS KH 5C and AH."""
    plan = oracle.plan_exchange([-3, -1, 4], [2, 9, 5], "upcoming_contract")
    assert sorted(plan, key=lambda leg: leg.receiver) == [oracle.Leg(2, 0, 3), oracle.Leg(2, 1, 1)]
    assert sorted(oracle.returns_one_at_a_time(EX6_DEAL[0], EX6_GIVES[(2, 0)])) == sorted(
        cards("AS KH 5C")
    )
    assert oracle.returns_one_at_a_time(EX6_DEAL[1], EX6_GIVES[(2, 1)]) == ["AH"]


def test_example6_whole_hand() -> None:
    """The built hand checks clean, seat 2 ends as stated, and both leg orders pass."""
    hand = hand_two("classic", 0, [-3, -1, 4], EX6_DEAL, EX6_KITTY, EX6_GIVES)
    legs = {(leg["giver"], leg["receiver"]): sorted(leg["returned"]) for leg in hand["exchange"]}
    assert legs == {(2, 0): sorted(cards("AS KH 5C")), (2, 1): ["AH"]}
    assert check_two("classic", hand, 0, [-3, -1, 4]) == []
    hand["exchange"].reverse()
    assert check_two("classic", hand, 0, [-3, -1, 4]) == []
    hand["exchange"][0]["given"] = ["3H"]
    hand["exchange"][1]["given"] = cards("3S 4H 3H")
    issues = check_two("classic", hand, 0, [-3, -1, 4])
    assert any("3H is given in two legs" in i for i in issues)


# ---------------------------------------------------------------------------
# Example 7: two up, one down; order; show rule
# ---------------------------------------------------------------------------

EX7_DEAL = [
    cards("9S 8S 7S 6S 3S 6H 5H 4H 3H 7D 6D 5D 4D 3D 2D 2C"),
    cards("QS 4S AH KH QH JH AD KD QD AC KC QC JC TC 9C 8C"),
    cards("AS JS TS 2S TH 9H 8H 7H JD TD 9D 8D 6C 5C 4C 3C"),
]
EX7_KITTY = cards("KS 5S 2H 7C")
EX7_GIVES = {(2, 1): ["2S"], (0, 1): ["3S"]}


@pytest.mark.parametrize("priority", ["upcoming_contract", "most_overtricks"])
def test_example7_plan(priority: str) -> None:
    """Seat 2 (upcoming 5) gives before seat 0 (upcoming 2); equal deltas fall back."""
    plan = oracle.plan_exchange([1, -2, 1], [2, 9, 5], priority)
    assert plan == [oracle.Leg(2, 1, 1), oracle.Leg(0, 1, 1)]


def test_example7_returns_and_show() -> None:
    """2S gets QS, then 3S gets 4S; shows are KS and KS 5S."""
    first = oracle.returns_one_at_a_time(EX7_DEAL[1], ["2S"])
    assert first == ["QS"]
    after_first = (set(EX7_DEAL[1]) | {"2S"}) - {"QS"}
    assert oracle.returns_one_at_a_time(after_first, ["3S"]) == ["4S"]
    assert oracle.returns_one_at_a_time(EX7_DEAL[1], ["3S"]) == ["QS"]  # reversed order
    assert oracle.shown_cards(["QS"], EX7_KITTY) == ["KS"]
    assert sorted(oracle.shown_cards(["4S"], EX7_KITTY)) == ["5S", "KS"]


@pytest.mark.parametrize("preset", ["classic-show", "catalan"])
def test_example7_whole_hand_with_show(preset: str) -> None:
    """Built hand (show rule on) checks clean; a wrong show or leg order is reported."""
    hand = hand_two(preset, 0, [1, -2, 1], EX7_DEAL, EX7_KITTY, EX7_GIVES)
    assert [leg["returned"] for leg in hand["exchange"]] == [["QS"], ["4S"]]
    assert [(e["to"], sorted(e["cards"])) for e in hand["shown"]] == [
        (2, ["KS"]),
        (0, ["5S", "KS"]),
    ]
    assert check_two(preset, hand, 0, [1, -2, 1]) == []
    wrong_show = copy.deepcopy(hand)
    wrong_show["shown"][1]["cards"] = ["KS"]
    issues = check_two(preset, wrong_show, 0, [1, -2, 1])
    assert len(issues) == 1
    assert issues[0].startswith("hand 2, shown event 2:")
    no_show = copy.deepcopy(hand)
    no_show["shown"] = []
    assert check_two(preset, no_show, 0, [1, -2, 1])[0].startswith("hand 2, shown:")


def test_example7_reversed_order_is_reported() -> None:
    """A record resolving seat 0 first (seat 0 gets QS, seat 2 gets 4S) is wrong."""
    reversed_legs = [[0, 1, 1], [2, 1, 1]]
    hand = hand_two("classic", 0, [1, -2, 1], EX7_DEAL, EX7_KITTY, EX7_GIVES, legs=reversed_legs)
    assert [leg["returned"] for leg in hand["exchange"]] == [["QS"], ["4S"]]
    issues = check_two("classic", hand, 0, [1, -2, 1])
    assert issues == [
        "hand 2, exchange: legs (giver, receiver, count) are [(0, 1, 1), (2, 1, 1)], expected [(2, 1, 1), (0, 1, 1)]"
    ]


def test_example7_show_absent_when_rule_off() -> None:
    """Without dealer_show (classic) the shown list must be empty."""
    hand = hand_two("classic", 0, [1, -2, 1], EX7_DEAL, EX7_KITTY, EX7_GIVES)
    assert hand["shown"] == []
    assert check_two("classic", hand, 0, [1, -2, 1]) == []
    hand["shown"] = [{"to": 2, "cards": ["KS"]}]
    assert check_two("classic", hand, 0, [1, -2, 1])[0].startswith("hand 2, shown:")


# ---------------------------------------------------------------------------
# Example 8: the two priority rules disagree
# ---------------------------------------------------------------------------


def test_example8_priorities_disagree() -> None:
    """Deltas +2/-3/+1, hand 2 dealer 1: upcoming_contract -> seat 2 first; most_overtricks -> seat 0."""
    upcoming = [2, 9, 5]
    assert oracle.plan_exchange([2, -3, 1], upcoming, "upcoming_contract") == [
        oracle.Leg(2, 1, 1),
        oracle.Leg(0, 1, 2),
    ]
    assert oracle.plan_exchange([2, -3, 1], upcoming, "most_overtricks") == [
        oracle.Leg(0, 1, 2),
        oracle.Leg(2, 1, 1),
    ]


# ---------------------------------------------------------------------------
# Example 9: split exchange (catalan-plus-minus)
# ---------------------------------------------------------------------------


def _example9_deal() -> tuple[list[list[str]], list[str], list[str]]:
    """A deal fitting Example 9: seat 1's spades after the discard are QS 4S, seat 0
    holds 2S, seat 2 holds KS (the example gives only these cards)."""
    seat0 = cards("2S 3S 5S 6S 7S 8S")
    seat2 = cards("9S TS JS KS AS")
    seat1 = cards("QS 4S")
    rest = [c for c in DECK if c[1] != "S"]
    seat1 += rest[:14]
    kitty = rest[14:18]
    seat0 += rest[18:28]
    seat2 += rest[28:39]
    discards = [seat1[2], seat1[3], kitty[0], kitty[1]]
    return [seat0, seat1, seat2], kitty, discards


def test_example9_split_exchange() -> None:
    """Reading C: seat 0 gets QS, seat 2 gets its own KS back; reading A is reported."""
    deal, kitty, discards = _example9_deal()
    assert oracle.plan_exchange([1, -2, 1], [5, 9, 2], "upcoming_contract") == [
        oracle.Leg(0, 1, 1),
        oracle.Leg(2, 1, 1),
    ]
    gives = {(0, 1): ["2S"], (2, 1): ["KS"]}
    hand = hand_two("catalan-plus-minus", 0, [1, -2, 1], deal, kitty, gives, discards=discards)
    assert [leg["returned"] for leg in hand["exchange"]] == [["QS"], ["KS"]]
    assert hand["shown"] == []
    assert check_two("catalan-plus-minus", hand, 0, [1, -2, 1]) == []
    reading_a = copy.deepcopy(hand)
    reading_a["exchange"][0]["returned"] = ["KS"]
    reading_a["exchange"][1]["returned"] = ["QS"]
    issues = check_two("catalan-plus-minus", reading_a, 0, [1, -2, 1])
    assert issues[0] == "hand 2, exchange leg 1: seat 1 returned [KS] to seat 0, expected [QS]"


def test_example9_discards_come_before_the_exchange() -> None:
    """In catalan-plus-minus the dealer discards from deal + kitty, before receiving."""
    deal, kitty, discards = _example9_deal()
    gives = {(0, 1): ["2S"], (2, 1): ["KS"]}
    hand = hand_two("catalan-plus-minus", 0, [1, -2, 1], deal, kitty, gives, discards=discards)
    hand["discards"] = ["2S", *discards[1:]]  # 2S only arrives later, at GIVE
    issues = check_two("catalan-plus-minus", hand, 0, [1, -2, 1])
    assert issues == ["hand 2, discards: dealer 1 discards [2S], not in his hand + kitty"]


# ---------------------------------------------------------------------------
# Example 10: end of game
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "scores", "winners", "reasons"),
    [
        ("classic", (10, -4, -6), (0,), {"target"}),
        ("classic", (11, 10, -21), (0,), {"target"}),
        ("catalan", (11, 11, -22), (0, 1), {"draw"}),
        ("catalan", (12, 10, -22), (0,), {"target"}),
        ("nine-two-five", (3, 12, -15), (1,), {"target", "negative"}),
        ("classic-pm15", (3, 12, -15), (1,), {"target", "negative"}),
        ("catalan-plus-minus", (15, 0, -15), (0,), {"target"}),
        ("catalan-plus-minus", (16, 1, -17), (2,), {"target"}),
        ("catalan-plus-minus", (2, 13, -15), (2,), {"target", "negative"}),
    ],
)
def test_example10_game_over(
    preset: str, scores: tuple[int, int, int], winners: tuple[int, ...], reasons: set[str]
) -> None:
    """Rows of Example 10 that end the game at once."""
    decision = oracle.end_of_game(rules_of(preset), scores, 5, False)
    assert decision == oracle.EndDecision(True, winners, frozenset(reasons))


def test_example10_overtime() -> None:
    """10/10/-20 goes to sudden death; the next hand decides either way."""
    rules = rules_of("classic")
    tie = oracle.end_of_game(rules, (10, 10, -20), 5, False)
    assert tie == oracle.EndDecision(False, overtime=True)
    assert oracle.end_of_game(rules, (11, 8, -19), 6, True).winners == (0,)
    assert oracle.end_of_game(rules, (7, 9, -16), 6, True).reasons == {"overtime"}
    assert oracle.end_of_game(rules, (7, 9, -16), 6, True).winners == (1,)
    assert oracle.end_of_game(rules, (9, 9, -18), 6, True) == oracle.EndDecision(
        False, overtime=True
    )
    for preset in ("nine-two-five", "classic-pm15"):
        assert oracle.end_of_game(rules_of(preset), (8, 8, -16), 5, False).overtime


def test_example10_alternative_negative_setting() -> None:
    """2/13/-15 with -15 only stopping the game: seat 1 wins on the highest score."""
    rules = rules_of(
        "catalan-plus-minus", negative_role="ends_game", winner_rule="highest", tie_rule="draw"
    )
    assert oracle.end_of_game(rules, (2, 13, -15), 5, False).winners == (1,)


@pytest.mark.parametrize("preset", every_preset())
def test_example10_cap(preset: str) -> None:
    """After hand 99: unique top wins, a shared top draws; both with reason capped."""
    rules = rules_of(preset)
    assert oracle.end_of_game(rules, (4, -1, -3), 99, False) == oracle.EndDecision(
        True, (0,), frozenset({"capped"})
    )
    assert oracle.end_of_game(rules, (2, 2, -4), 99, False) == oracle.EndDecision(
        True, (0, 1), frozenset({"capped"})
    )
    assert not oracle.end_of_game(rules, (4, -1, -3), 98, False).over


# ---------------------------------------------------------------------------
# Whole records
# ---------------------------------------------------------------------------

SEEDS = range(4)


@pytest.mark.parametrize("preset", every_preset())
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_games_are_consistent(preset: str, seed: int) -> None:
    """Random legal games written by the independent generator check clean."""
    record = build_game(preset, seed)
    assert oracle.check_record(record) == []


@pytest.mark.parametrize("preset", every_preset())
def test_generated_capped_games_are_consistent(preset: str) -> None:
    """With max_hands = 3 most games stop on the cap (7.4); all must check clean."""
    reasons = set()
    for seed in range(8):
        record = build_game(preset, seed, max_hands=3)
        reasons.add(record["result"]["reason"])
        assert oracle.check_record(record) == []
    assert "capped" in reasons


def test_generated_overtime_games_are_consistent() -> None:
    """Sudden-death games (7.3) occur among random nine-two-five games; they check clean."""
    overtime = [
        r
        for r in (build_game("nine-two-five", seed) for seed in range(120))
        if r["result"]["reason"] == "overtime"
    ]
    assert overtime
    for record in overtime:
        assert oracle.check_record(record) == []
        record["hands"].pop()  # the tied hand alone does not end the game
        assert "the game is not over" in oracle.check_record(record)[0]


def test_fixed_first_dealer_and_end_reason_refinement() -> None:
    """rules.first_dealer may be a seat; 'negative' is accepted when only -15 fired."""
    record = build_game("classic", 11, first_dealer=2)
    assert record["first_dealer"] == 2
    assert oracle.check_record(record) == []
    record["first_dealer"] = 1
    assert "differs from rules.first_dealer" in oracle.check_record(record)[0]
    for seed in range(40):
        record = build_game("classic-pm15", seed)
        if max(record["result"]["scores"]) < 15 and record["result"]["reason"] == "target":
            record["result"]["reason"] = "negative"
            assert oracle.check_record(record) == []
            return
    pytest.fail("no game ended on the negative limit alone: pick other seeds")


def test_cross_check_return_algorithms() -> None:
    """4.6: one card at a time (oracle) equals the batch rule (generator), any order."""
    rng = random.Random(5)
    for _ in range(2000):
        deck = DECK[:]
        rng.shuffle(deck)
        hand, given = set(deck[:16]), deck[16 : 16 + rng.randint(1, 9)]
        assert sorted(oracle.returns_one_at_a_time(hand, given)) == sorted(
            batch_returns(hand, given)
        )


def _first_clean(preset: str) -> dict[str, Any]:
    """A generated game with at least two hands and an exchange in hand 2."""
    for seed in range(100):
        record = build_game(preset, seed)
        if len(record["hands"]) >= 3 and record["hands"][1]["exchange"]:
            return record
    raise AssertionError("no suitable game generated")


def test_altered_trick_card_is_reported() -> None:
    """One card of one trick replaced by a discarded card: reported at that trick."""
    record = _first_clean("classic")
    hand = record["hands"][1]
    hand["tricks"][4]["cards"][1] = hand["discards"][0]
    issues = oracle.check_record(record)
    assert issues
    assert issues[0].startswith("hand 2, trick 5: seat ")
    assert "which it does not hold" in issues[0]


def _mutations() -> list[tuple[str, str]]:
    """(name, expected start of the first issue) of each single alteration."""
    return [
        ("winner", "hand 2, trick 3: winner is"),
        ("leader", "hand 2, trick 1: leader is"),
        ("revoke", "hand 2, trick"),
        ("scores", "hand 2, scores:"),
        ("deltas", "hand 2, deltas:"),
        ("tricks_won", "hand 2, tricks_won:"),
        ("dealer", "hand 2: dealer is"),
        ("contracts", "hand 2: contracts are"),
        ("number", "hand 2: number is"),
        ("duplicate_deal", "hand 2, deal:"),
        ("trump", "hand 2, trump:"),
        ("returned", "hand 2, exchange leg 1:"),
        ("given_not_held", "hand 2, exchange leg 1: seat"),
        ("plan", "hand 2, exchange: legs"),
        ("discard_not_held", "hand 2, discards:"),
        ("reason", "result: reason"),
        ("winners", "result: winners"),
        ("hands_played", "result: hands_played"),
        ("drop_last_hand", "hand "),
        ("format", "record: format"),
        ("rules", "rules: target"),
        ("faults", "faults:"),
        ("first_dealer", "hand 1: dealer is"),
    ]


def _mutate(record: dict[str, Any], name: str) -> None:
    """Apply one named alteration to a valid record."""
    hand = record["hands"][1]
    if name == "winner":
        trick = hand["tricks"][2]
        trick["winner"] = (trick["winner"] + 1) % 3
    elif name == "leader":
        hand["tricks"][0]["leader"] = (hand["tricks"][0]["leader"] + 1) % 3
    elif name == "revoke":
        _make_revoke(hand)
    elif name in ("scores", "deltas", "tricks_won"):
        hand[name] = [hand[name][0] + 1, hand[name][1] - 1, hand[name][2]]
    elif name == "dealer":
        hand["dealer"] = (hand["dealer"] + 1) % 3
    elif name == "contracts":
        hand["contracts"] = hand["contracts"][::-1]
    elif name == "number":
        hand["number"] = 3
    elif name == "duplicate_deal":
        hand["deal"][0][0] = hand["deal"][1][0]
    elif name == "trump":
        hand["trump"] = "X"
    else:
        _mutate_exchange(record, name)


def _mutate_exchange(record: dict[str, Any], name: str) -> None:
    """Alterations of the exchange and discards of hand 2."""
    hand = record["hands"][1]
    if name == "returned":
        leg = hand["exchange"][0]
        if set(leg["returned"]) != set(leg["given"]):
            leg["returned"] = leg["given"]  # as if every given card came straight back
        else:
            leg["returned"][0] = next(
                c for c in hand["deal"][leg["receiver"]] if c not in leg["given"]
            )
    elif name == "given_not_held":
        leg = hand["exchange"][0]
        other = 3 - leg["giver"] - leg["receiver"]
        leg["given"][0] = hand["deal"][other][0]
    elif name == "plan":
        hand["exchange"] = []
    elif name == "discard_not_held":
        dealer = hand["dealer"]
        moved = {c for leg in hand["exchange"] for c in leg["given"] + leg["returned"]}
        hand["discards"][0] = next(c for c in hand["deal"][(dealer + 1) % 3] if c not in moved)
    else:
        _mutate_top(record, name)


def _make_revoke(hand: dict[str, Any]) -> None:
    """Swap two cards of one seat so that it fails to follow suit while able."""
    for number, trick in enumerate(hand["tricks"]):
        led = trick["cards"][0][1]
        for later in hand["tricks"][number + 1 :]:
            for pos in (1, 2):
                seat = (trick["leader"] + pos) % 3
                lpos = (seat - later["leader"]) % 3
                mine, theirs = trick["cards"][pos], later["cards"][lpos]
                if mine[1] == led and theirs[1] != led:
                    trick["cards"][pos], later["cards"][lpos] = theirs, mine
                    return
    raise AssertionError("no revoke possible")


def _mutate_top(record: dict[str, Any], name: str) -> None:
    """Alterations of the top-level fields."""
    if name == "reason":
        record["result"]["reason"] = "capped"
    elif name == "winners":
        record["result"]["winners"] = [w for w in range(3) if w not in record["result"]["winners"]][
            :1
        ]
    elif name == "hands_played":
        record["result"]["hands_played"] += 1
    elif name == "drop_last_hand":
        record["hands"].pop()
    elif name == "format":
        record["format"] = "arena952.game/2"
    elif name == "rules":
        record["rules"]["target"] = "ten"
    elif name == "faults":
        record["faults"] = [{"seat": 5}]
    elif name == "first_dealer":
        record["first_dealer"] = (record["first_dealer"] + 1) % 3


@pytest.mark.parametrize(("name", "prefix"), _mutations())
def test_single_alteration_is_reported(name: str, prefix: str) -> None:
    """Every single alteration of a valid record is reported, first at its place."""
    record = _first_clean("classic")
    _mutate(record, name)
    issues = oracle.check_record(record)
    assert issues, name
    assert issues[0].startswith(prefix), issues


@pytest.mark.parametrize(
    "garbage",
    [None, [], "x", 3, {}, {"format": "arena952.game/1"}, {"hands": "x", "rules": []}],
)
def test_garbage_gives_discrepancies_not_exceptions(garbage: Any) -> None:
    """Whatever the input, the oracle answers with discrepancy strings."""
    issues = oracle.check_record(garbage)
    assert issues
    assert all(isinstance(i, str) for i in issues)


@pytest.mark.slow
def test_random_corruption_never_raises() -> None:
    """Replace random values deep inside a valid record with junk: still only strings."""
    base = _first_clean("catalan-plus-minus")
    rng = random.Random(3)
    junk: list[Any] = [None, -1, 7, "ZZ", "AS", [], {}, [None], True, 1.5, ["AS", "AS"]]
    for _ in range(300):
        record = copy.deepcopy(base)
        node: Any = record
        for _depth in range(rng.randint(1, 6)):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            key = rng.choice(keys)
            child = node[key]
            if not isinstance(child, dict | list) or rng.random() < 0.3:
                node[key] = rng.choice(junk)
                break
            node = child
        issues = oracle.check_record(record)
        assert all(isinstance(i, str) for i in issues)
        assert not any("could not be checked" in i for i in issues), issues
