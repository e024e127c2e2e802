"""Game records in the ``arena952.game/1`` format (docs/record-format.md), and replaying them.

A record is the replayable fact of one game. :func:`game_record` writes one from a
:class:`~arena.game.state.GameState`; :func:`replay_record` feeds a record's decisions back
through the engine and stops at the first step where the record and the rules disagree,
raising :class:`RecordError` with the game, hand and step. Nothing in a record is trusted:
deals are checked against the seed, every decision against the legal actions, every forced
result (returns, shows, trick winners, scores, the end of the game) against the engine's.

A record names how its seed became deals in the extra field ``shuffle``
(:data:`~arena.game.dealing.HMAC_SHUFFLE`, the keyed shuffle); records without it were
dealt by the legacy ``random.Random(seed)`` shuffle and are verified against that.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from arena.game.actions import CallTrump, Discard, Give
from arena.game.cards import (
    FULL_DECK,
    Card,
    InvalidCardError,
    Trump,
    card_texts,
    cards_in,
    mask_of,
    parse_cards,
)
from arena.game.dealing import HMAC_SHUFFLE, LEGACY_SHUFFLE, SHUFFLES, deals_for
from arena.game.rules import CUSTOM, PRESETS, RuleSet, RuleSetError
from arena.game.state import (
    GameState,
    HandLog,
    IllegalActionError,
    Phase,
    Seat,
)

FORMAT: Final = "arena952.game/1"


class RecordError(ValueError):
    """A record that does not load or does not agree with the rules, and where it first fails."""

    def __init__(
        self, message: str, *, game: str = "?", hand: int | None = None, step: str = ""
    ) -> None:
        self.game = game
        self.hand = hand
        self.step = step
        self.message = message
        where = f"game {game}"
        if hand is not None:
            where += f", hand {hand}"
        if step:
            where += f", {step}"
        super().__init__(f"{where}: {message}")


def game_record(
    state: GameState,
    players: Sequence[str],
    faults: Sequence[Mapping[str, Any]] = (),
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``arena952.game/1`` record of *state* (finished or not) as a JSON-ready dict.

    *players* are ``name@version`` per seat; *faults* the referee's fault entries;
    *extra* adds fields such as timings or logs (docs/record-format.md allows extra fields).
    """
    rules = state.rules
    result = state.result
    record: dict[str, Any] = {
        "format": FORMAT,
        "ruleset": rules.name,
        "rules": rules.to_json(),
        "seed": state.seed,
        "first_dealer": state.first_dealer,
        "players": list(players),
        "hands": [_hand_json(h) for h in state.history],
        "result": None
        if result is None
        else {
            "winners": list(result.winners),
            "reason": result.reason.value,
            "scores": list(result.scores),
            "hands_played": result.hands_played,
        },
        "faults": [dict(f) for f in faults],
    }
    if state.shuffle != LEGACY_SHUFFLE:
        record["shuffle"] = state.shuffle
    if extra:
        record.update(extra)
    return record


def _hand_json(hand: HandLog) -> dict[str, Any]:
    return {
        "number": hand.number,
        "dealer": hand.dealer,
        "contracts": list(hand.contracts),
        "deal": [card_texts(cards_in(m)) for m in hand.deal],
        "kitty": card_texts(cards_in(hand.kitty)),
        "trump": None if hand.trump is None else hand.trump.value,
        "exchange": [
            {
                "giver": x.leg.giver,
                "receiver": x.leg.receiver,
                "given": card_texts(x.given),
                "returned": card_texts(x.returned),
            }
            for x in hand.legs
        ],
        "shown": [{"to": to, "cards": card_texts(cards_in(mask))} for to, mask in hand.shown],
        "discards": card_texts(hand.discards),
        "tricks": [
            {"leader": t.leader, "cards": card_texts(t.cards), "winner": t.winner}
            for t in hand.tricks
        ],
        "tricks_won": list(hand.tricks_won),
        "deltas": None if hand.deltas is None else list(hand.deltas),
        "scores": None if hand.scores is None else list(hand.scores),
    }


# ---------------------------------------------------------------------- replay


class _Replay:
    """Walks one record through the engine; ``where`` tracks the step for error messages."""

    def __init__(self, record: Mapping[str, Any], game: str, verify_seed: bool) -> None:
        self.record = record
        self.game = game
        self.verify_seed = verify_seed
        self.hand_no: int | None = None
        self.step = "header"

    def fail(self, message: str) -> RecordError:
        return RecordError(message, game=self.game, hand=self.hand_no, step=self.step)

    def run(self) -> GameState:
        record = self.record
        if record.get("format") != FORMAT:
            raise self.fail(f"format must be {FORMAT!r}, not {record.get('format')!r}")
        rules = self._rules()
        seed = record.get("seed")
        first_dealer = record.get("first_dealer")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise self.fail(f"seed must be an integer, not {seed!r}")
        shuffle = record.get("shuffle", LEGACY_SHUFFLE)
        if shuffle not in SHUFFLES:
            raise self.fail(f"unknown shuffle {shuffle!r}; known: {', '.join(SHUFFLES)}")
        if shuffle == HMAC_SHUFFLE and not 0 <= seed < 2**256:
            raise self.fail(f"a {HMAC_SHUFFLE} seed is below 2**256, not {seed}")
        if first_dealer not in (0, 1, 2):
            raise self.fail(f"first_dealer must be 0, 1 or 2, not {first_dealer!r}")
        players = record.get("players")
        if not isinstance(players, list) or len(players) != 3:
            raise self.fail("players must list 3 names")
        if not isinstance(record.get("faults"), list):
            raise self.fail("faults must be a list")
        hands = record.get("hands")
        if not isinstance(hands, list) or not hands:
            raise self.fail("hands must be a non-empty list")
        deals = [self._deal(i, h) for i, h in enumerate(hands, start=1)]
        self.hand_no, self.step = 1, "deal"
        state = GameState(
            rules,
            seed,
            first_dealer=first_dealer,
            deal_source=self._source(deals, seed, shuffle),
            shuffle=shuffle,
        )
        for index, hand in enumerate(hands, start=1):
            self.hand_no, self.step = index, "start"
            if state.is_over:
                raise self.fail("the game was already over before this hand")
            self._hand(state, hand)
        self.hand_no, self.step = None, "result"
        if not state.is_over:
            raise self.fail(f"the game is not over after hand {len(hands)}")
        self._result(state)
        return state

    def _rules(self) -> RuleSet:
        record = self.record
        name = record.get("ruleset")
        data = record.get("rules")
        if not isinstance(data, Mapping):
            raise self.fail("rules must be an object with every RuleSet parameter")
        if name != CUSTOM and name not in PRESETS:
            raise self.fail(f"unknown ruleset {name!r}")
        try:
            rules = RuleSet.from_json(data, name=str(name))
        except RuleSetError as exc:
            raise self.fail(str(exc)) from None
        if name in PRESETS and rules != PRESETS[str(name)]:
            raise self.fail(f"rules differ from the {name} preset; use ruleset 'custom'")
        return rules

    def _deal(self, index: int, hand: Any) -> tuple[tuple[int, int, int], int]:
        self.hand_no, self.step = index, "deal"
        if not isinstance(hand, Mapping):
            raise self.fail("a hand must be an object")
        try:
            seats = [parse_cards(cards) for cards in hand["deal"]]
            kitty = parse_cards(hand["kitty"])
        except (KeyError, TypeError, InvalidCardError) as exc:
            raise self.fail(f"unreadable deal: {exc}") from None
        masks = [mask_of(s) for s in seats]
        if len(seats) != 3 or [len(s) for s in seats] != [16] * 3 or len(kitty) != 4:
            raise self.fail("a deal is 16 cards per seat and a 4-card kitty")
        kitty_mask = mask_of(kitty)
        if (
            sum(m.bit_count() for m in masks) + kitty_mask.bit_count() != 52
            or (masks[0] | masks[1] | masks[2] | kitty_mask) != FULL_DECK
        ):
            raise self.fail("the deal does not hold each of the 52 cards exactly once")
        return (masks[0], masks[1], masks[2]), kitty_mask

    def _source(
        self, deals: list[tuple[tuple[int, int, int], int]], seed: int, shuffle: str
    ) -> Callable[[int, int], tuple[tuple[int, int, int], int]]:
        # Legacy deals draw the first dealer before any shuffle; deals_for does that too.
        expected_deals = deals_for(seed, shuffle)

        def source(number: int, dealer: Seat) -> tuple[tuple[int, int, int], int]:
            if number > len(deals):
                raise self.fail(f"the game goes on to hand {number}, which the record lacks")
            deal = deals[number - 1]
            if self.verify_seed:
                expected = expected_deals.deal(number, dealer)
                if expected != deal:
                    self.hand_no, self.step = number, "deal"
                    raise self.fail(f"the deal is not the one seed {seed} gives")
            return deal

        return source

    def _expect(self, what: str, recorded: Any, actual: Any) -> None:
        if recorded != actual:
            raise self.fail(f"{what} is {recorded!r} in the record, the rules give {actual!r}")

    def _hand(self, state: GameState, hand: Mapping[str, Any]) -> None:
        log = state.hand
        self._expect("number", hand.get("number"), log.number)
        self._expect("dealer", hand.get("dealer"), log.dealer)
        self._expect("contracts", hand.get("contracts"), list(log.contracts))
        exchange = hand.get("exchange")
        tricks = hand.get("tricks")
        if not isinstance(exchange, list) or not isinstance(tricks, list):
            raise self.fail("exchange and tricks must be lists")
        self.step = "exchange"
        plan = [(x.leg.giver, x.leg.receiver) for x in log.legs]
        try:
            recorded_plan = [(leg["giver"], leg["receiver"]) for leg in exchange]
        except (KeyError, TypeError):
            raise self.fail("each exchange leg needs giver and receiver") from None
        self._expect("the exchange plan (giver, receiver)", recorded_plan, plan)
        while not state.is_over and state.hand is log and state.phase is not Phase.PLAY:
            self._decision(state, hand, exchange)
        self._check_pre_play(log, hand, exchange)
        for t, trick in enumerate(tricks, start=1):
            self._trick(state, log, t, trick)
        if state.hand is log and not state.is_over:
            self.step = f"trick {len(log.tricks) + 1}"
            raise self.fail("the hand has fewer than 16 tricks")
        self.step = "score"
        self._expect("tricks_won", hand.get("tricks_won"), list(log.tricks_won))
        self._expect("deltas", hand.get("deltas"), None if log.deltas is None else list(log.deltas))
        self._expect("scores", hand.get("scores"), None if log.scores is None else list(log.scores))

    def _decision(self, state: GameState, hand: Mapping[str, Any], exchange: list[Any]) -> None:
        phase = state.phase
        try:
            if phase is Phase.GIVE:
                giver = state.current_seat
                self.step = f"exchange, give of seat {giver}"
                legs = [parse_cards(leg["given"]) for leg in exchange if leg["giver"] == giver]
                state.apply_decision(Give(tuple(legs)))
            elif phase is Phase.TRUMP:
                self.step = "trump"
                raw = hand.get("trump")
                state.apply_decision(CallTrump(Trump.parse(raw if isinstance(raw, str) else "?")))
            elif phase is Phase.DISCARD:
                self.step = "discard"
                state.apply_decision(Discard(parse_cards(hand["discards"])))
        except (IllegalActionError, InvalidCardError, KeyError, TypeError) as exc:
            raise self.fail(str(exc)) from None

    def _check_pre_play(self, log: HandLog, hand: Mapping[str, Any], exchange: list[Any]) -> None:
        for i, (leg, recorded) in enumerate(zip(log.legs, exchange, strict=True), start=1):
            self.step = f"exchange leg {i}"
            try:
                returned = sorted(parse_cards(recorded["returned"]))
            except (KeyError, TypeError, InvalidCardError) as exc:
                raise self.fail(f"unreadable returned cards: {exc}") from None
            self._expect("returned", card_texts(returned), card_texts(leg.returned))
        self.step = "show"
        try:
            shown = [(s["to"], sorted(parse_cards(s["cards"]))) for s in hand["shown"]]
        except (KeyError, TypeError, InvalidCardError) as exc:
            raise self.fail(f"unreadable show events: {exc}") from None
        actual = [(to, list(cards_in(mask))) for to, mask in log.shown]
        self._expect("shown", _show_texts(shown), _show_texts(actual))

    def _trick(self, state: GameState, log: HandLog, number: int, trick: Any) -> None:
        self.step = f"trick {number}"
        if state.is_over or state.hand is not log:
            raise self.fail("the hand already has 16 tricks")
        try:
            leader, cards, winner = trick["leader"], parse_cards(trick["cards"]), trick["winner"]
        except (KeyError, TypeError, InvalidCardError) as exc:
            raise self.fail(f"unreadable trick: {exc}") from None
        self._expect("leader", leader, state.current_seat)
        if len(cards) != 3:
            raise self.fail(f"a trick has 3 cards, not {len(cards)}")
        for position, card in enumerate(cards, start=1):
            self.step = f"trick {number}, card {position}"
            try:
                state.apply(card)
            except IllegalActionError as exc:
                raise self.fail(str(exc)) from None
        self.step = f"trick {number}"
        self._expect("winner", winner, log.tricks[number - 1].winner)

    def _result(self, state: GameState) -> None:
        result = state.result
        assert result is not None
        recorded = self.record.get("result")
        if not isinstance(recorded, Mapping):
            raise self.fail("result must be an object")
        winners = recorded.get("winners")
        self._expect(
            "winners",
            sorted(winners) if isinstance(winners, list) else winners,
            list(result.winners),
        )
        self._expect("reason", recorded.get("reason"), result.reason.value)
        self._expect("scores", recorded.get("scores"), list(result.scores))
        self._expect("hands_played", recorded.get("hands_played"), result.hands_played)


def _show_texts(shown: Sequence[tuple[int, Sequence[Card]]]) -> list[tuple[int, list[str]]]:
    return [(to, card_texts(cards)) for to, cards in shown]


def replay_record(
    record: Mapping[str, Any], *, game: str | None = None, verify_seed: bool = True
) -> GameState:
    """Replay *record* through the engine and return the final state.

    *game* names the game in error messages (default: its seed). With *verify_seed* the
    deals must be those the seed produces; turn it off for hand-built deals.

    :raises RecordError: at the first step where the record is unreadable or breaks the rules.
    """
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object", game=game or "?")
    label = game if game is not None else str(record.get("seed", "?"))
    try:
        return _Replay(record, label, verify_seed).run()
    except RecordError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise RecordError(f"unreadable record: {exc}", game=label) from None


__all__ = ["FORMAT", "RecordError", "game_record", "replay_record"]
