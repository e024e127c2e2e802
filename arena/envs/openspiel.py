"""9-5-2 as an OpenSpiel game (needs OpenSpiel, the ``bench`` extra).

Importing this module registers ``python_nine_five_two`` with ``pyspiel.register_game``::

    import pyspiel
    import arena.envs.openspiel  # registers the game
    game = pyspiel.load_game("python_nine_five_two", {"ruleset": "classic"})

Parameters: ``ruleset``, a preset id or the JSON text of a custom ruleset
(``RuleSet.to_json``); ``max_hands``, a cap on the number of hands (0 keeps the ruleset's).

The game is sequential, imperfect-information, general-sum, with explicit stochastic chance:
the first dealer (3 outcomes, unless the ruleset fixes it) and every deal, one card at a
time (52 outcomes: the n-th card drawn goes to the seat ``dealer + 1 + n`` as in docs/rules.md
1.3, the last 4 to the kitty). Nobody sees a deal until it is complete. The deal of the
next hand is drawn as soon as the last trick of a hand begins (its cards are forced), so
the engine can move on to the next hand with the last card. Player actions are the 57
step-level actions of :mod:`arena.envs.encoding`. Rewards are score changes (each hand's
delta on the step that ends it); returns are the cumulative scores.

Observations: strings are the observation's text form (the information-state string adds
the seat's view of every earlier hand, so it has perfect recall); tensors are the encoding
of :mod:`arena.envs.encoding` for both. :meth:`NineFiveTwoState.resample_from_infostate`
draws a full state consistent with what a seat knows, so ``ISMCTSBot`` can play the game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pyspiel

from arena.envs.encoding import ACTION_COUNT, SIZE, action_index, action_of, encode
from arena.envs.resample import Resampler, Tag
from arena.game import (
    CARDS,
    PRESETS,
    GameState,
    Observation,
    Phase,
    RuleSet,
    format_cards,
    observe,
)

T = TypeVar("T")
SHORT_NAME = "python_nine_five_two"
_PARAMETERS = {"ruleset": "classic", "max_hands": 0}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python 9-5-2 (952 Arena engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=3,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


def rules_from_parameters(params: dict[str, Any]) -> RuleSet:
    """The ruleset the game parameters name.

    :raises ValueError: for an unknown preset or an invalid custom ruleset.
    """
    name = str(params.get("ruleset", "classic"))
    if name in PRESETS:
        rules = PRESETS[name]
    elif name.lstrip().startswith("{"):
        rules = RuleSet.from_json(json.loads(name))
    else:
        raise ValueError(f"unknown ruleset {name!r}; presets: {', '.join(PRESETS)}")
    max_hands = int(params.get("max_hands", 0))
    return rules.replace(max_hands=max_hands) if max_hands > 0 else rules


class NineFiveTwoGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no types
    """The game object: a ruleset and the game's sizes."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMETERS, **(params or {})}
        self.rules = rules_from_parameters(params)
        hands = self.rules.max_hands
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=52,
            num_players=3,
            # A hand's delta lies in [-9, +14] (docs/rules.md 1.7); scores are sums of deltas.
            min_utility=-9.0 * hands,
            max_utility=14.0 * hands,
            # Per hand: 52 chance draws, at most 14 give picks, a trump call, 4 discard
            # picks and 48 plays; and the first dealer's draw.
            max_game_length=1 + hands * (52 + 14 + 1 + 4 + 48),
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> NineFiveTwoState:
        """A game before the first dealer is drawn."""
        return NineFiveTwoState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> NineFiveTwoObserver:
        """The observer OpenSpiel asks for strings and tensors."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return NineFiveTwoObserver(perfect_recall)


class _DealSource:
    """The engine's deal source: each hand's 52 chance draws, mapped as in docs/rules.md 1.3.

    The engine reads it only inside ``apply`` (and its constructor), and the engine's
    ``clone`` keeps the same source, so each OpenSpiel state points it at its own draws
    right before every call into its engine. A hand not drawn yet gets a placeholder deal;
    that happens only on the throw-away copy that looks one trick ahead to learn whether
    the game ends with the hand.
    """

    def __init__(self) -> None:
        self.draws: dict[int, list[int]] = {}

    def __call__(self, number: int, dealer: int) -> tuple[tuple[int, int, int], int]:
        cards = self.draws.get(number, list(range(52)))
        hands = [0, 0, 0]
        for i, card in enumerate(cards[:48]):
            hands[(dealer + 1 + i) % 3] |= 1 << card
        kitty = 0
        for card in cards[48:]:
            kitty |= 1 << card
        return (hands[0], hands[1], hands[2]), kitty


class _Engine:
    """The engine's state, its deal source and the actions applied to it.

    Copied by ``GameState.clone`` (the engine's own copy: the keyed shuffle inside it
    cannot be deep-copied); pickled as the recipe that rebuilds it (rules, first dealer,
    draws, actions), which is how OpenSpiel serialises and copies Python states.
    """

    def __init__(self, rules: RuleSet, first_dealer: int, draws: dict[int, list[int]]) -> None:
        self.rules = rules
        self.first_dealer = first_dealer
        self.source = _DealSource()
        self.source.draws = draws
        self.game = GameState(rules, 0, first_dealer=first_dealer, deal_source=self.source)
        self.actions: list[int] = []

    def apply(self, action: int, draws: dict[int, list[int]]) -> None:
        """Apply an action id, the deal source reading *draws* (this state's own)."""
        self.source.draws = draws
        self.game.apply(action_of(action))
        self.actions.append(action)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        other = _Engine.__new__(_Engine)
        other.rules = self.rules
        other.first_dealer = self.first_dealer
        other.source = self.source  # shared; every caller points it at its draws first
        other.game = self.game.clone()
        other.actions = list(self.actions)
        return other

    def __getstate__(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "name": self.rules.name,
            "first_dealer": self.first_dealer,
            "draws": dict(self.source.draws),
            "actions": list(self.actions),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        rules = RuleSet.from_json(state["rules"], name=state["name"])
        draws = {int(k): list(v) for k, v in state["draws"].items()}
        self.__init__(rules, state["first_dealer"], draws)  # type: ignore[misc]
        for action in state["actions"]:
            self.apply(action, draws)


class _Log(list[T]):
    """A list of immutable entries, copied shallowly when a state is cloned (a clone per
    search simulation would otherwise deep-copy the whole history)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Log[T]:
        return _Log(self)


class NineFiveTwoState(pyspiel.State):  # type: ignore[misc]  # pyspiel ships no types
    """One game: the engine's :class:`GameState` once hand 1 is dealt, plus the chance
    draws and what each seat saw of earlier hands."""

    def __init__(self, game: NineFiveTwoGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._first_dealer: int | None = game.rules.first_dealer
        self._draws: dict[int, list[int]] = {}
        """Each hand's chance draws so far."""
        self._engine: _Engine | None = None
        self._dealing = 1
        """The hand whose deal is being drawn, or 0."""
        self._hand = 1
        self._tricks = 0
        """Completed tricks of the current hand."""
        self._trick = 0
        """Cards in the trick in progress."""
        self._past: _Log[tuple[str, str, str]] = _Log()
        """Per completed hand, each seat's view of it (for perfect-recall strings)."""
        self._tags: _Log[Tag] = _Log()
        self._rewards = [0.0, 0.0, 0.0]
        self._returns = [0.0, 0.0, 0.0]

    # -------------------------------------------------------------- OpenSpiel API

    def current_player(self) -> int:
        """The seat to act, CHANCE while drawing, TERMINAL once over."""
        if self._dealing:
            return int(pyspiel.PlayerId.CHANCE)
        engine = self._game_state()
        if engine.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return engine.current_seat

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal actions of *player*, as sorted action ids."""
        engine = self._game_state()
        assert player == engine.current_seat
        return [action_index(a) for a in engine.legal_actions()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The first dealer, or the next card of the deal, uniformly."""
        if self._first_dealer is None:
            return [(seat, 1 / 3) for seat in range(3)]
        drawn = set(self._draws.get(self._dealing, []))
        left = [card for card in range(52) if card not in drawn]
        return [(card, 1 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        if self._dealing:
            self._apply_chance(action)
            return
        engine = self._running()
        game = engine.game
        phase = game.phase
        self._tags.append(("act", self._hand, game.current_seat, phase))
        if phase is Phase.PLAY and self._tricks == 15 and self._trick == 2:
            self._remember_hand(game, action)
        engine.apply(action, self._draws)
        self._rewards = [0.0, 0.0, 0.0]
        if phase is not Phase.PLAY:
            return
        # Counting plays is enough to know where the hand stands (and far cheaper than an
        # observation per step); the scores change only when a hand ends.
        self._trick = (self._trick + 1) % 3
        self._tricks += self._trick == 0
        if self._tricks == 16:
            after = [float(x) for x in observe(game, 0).scores]
            self._rewards = [after[s] - self._returns[s] for s in range(3)]
            self._returns = after
            self._hand += 1
            self._tricks = 0
        elif self._tricks == 15 and self._trick == 0 and not self._ends_with_hand(engine):
            self._dealing = self._hand + 1

    def _apply_chance(self, action: int) -> None:
        self._rewards = [0.0, 0.0, 0.0]
        if self._first_dealer is None:
            self._first_dealer = action
            self._tags.append(("dealer", 1, -1, None))
            return
        cards = self._draws.setdefault(self._dealing, [])
        cards.append(action)
        self._tags.append(("draw", self._dealing, -1, None))
        if len(cards) < 52:
            return
        self._dealing = 0
        if self._engine is None:
            self._engine = _Engine(self._rules, self._first_dealer, self._draws)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._first_dealer is None:
                return f"first dealer {action}"
            return f"deal {CARDS[action]}"
        return str(action_of(action))

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self._engine is not None and not self._dealing and self._engine.game.is_over

    def rewards(self) -> list[float]:
        """Score changes of the last action (a hand's deltas when it ended it)."""
        return list(self._rewards)

    def returns(self) -> list[float]:
        """Cumulative scores so far (the final scores once over)."""
        return list(self._returns)

    def __str__(self) -> str:
        if self._engine is None:
            return f"dealing hand 1 ({len(self._draws.get(1, []))} of 52 cards)"
        return "\n".join(observe(self._engine.game, seat).to_text() for seat in range(3))

    # -------------------------------------------------------------- information

    def view(self, player: int) -> Observation | None:
        """The engine's observation of *player*, or ``None`` before hand 1 is dealt."""
        return None if self._engine is None else observe(self._engine.game, player)

    def information_text(self, player: int) -> str:
        """What *player* knows: its view of every earlier hand, then of this moment."""
        obs = self.view(player)
        if obs is None:
            return f"seat {player}: dealing hand 1"
        past = [f"hand {i}:\n{views[player]}" for i, views in enumerate(self._past, start=1)]
        return "\n".join([*past, _full_text(obs)])

    def resample_from_infostate(self, player: int, sampler: Callable[[], float]) -> Any:
        """A state drawn at random among those *player* cannot tell from this one.

        The cards *player* has not seen are dealt again, consistent with everything it saw
        (plays, voids, its exchange legs and shows); the hidden choices of the others
        (gives it was not party to, the dealer's discards) are chosen again; earlier hands
        are kept as they were (they cannot change what follows). Draws of the next deal,
        which nobody has seen, are drawn again.

        :raises RuntimeError: if no consistent state was found.
        """
        rng = random.Random(int(sampler() * 2**53))
        if self._engine is None:
            return self._redraw_unseen(rng)
        return Resampler(self, player, rng).sample()

    def tags(self) -> list[Tag]:
        """What each entry of :meth:`history` was (for the resampler)."""
        return list(self._tags)

    def drawn(self, hand: int) -> list[int]:
        """The chance draws of *hand*'s deal so far."""
        return list(self._draws.get(hand, []))

    def game_state(self) -> GameState:
        """The engine's state (the whole truth: never for a player's eyes).

        :raises RuntimeError: before hand 1 is dealt.
        """
        return self._running().game

    # -------------------------------------------------------------- internals

    def _running(self) -> _Engine:
        if self._engine is None:
            raise RuntimeError("hand 1 is not dealt yet")
        return self._engine

    def _game_state(self) -> GameState:
        return self._running().game

    def _ends_with_hand(self, engine: _Engine) -> bool:
        """Whether the game ends with this hand: play its forced last trick on a copy."""
        engine.source.draws = self._draws
        probe = engine.game.clone()
        for _ in range(3):
            probe.apply(probe.legal_actions()[0])
        return probe.is_over

    def _remember_hand(self, engine: GameState, action: int) -> None:
        seat = engine.current_seat
        last = f"last card: seat {seat} plays {CARDS[action]}"
        views = [_full_text(observe(engine, s)) + "\n" + last for s in range(3)]
        self._past.append((views[0], views[1], views[2]))

    def _redraw_unseen(self, rng: random.Random) -> NineFiveTwoState:
        """Before hand 1 is dealt nobody has seen a card: draw the same number again."""
        game = self.get_game()
        state: NineFiveTwoState = game.new_initial_state()
        for tag, action in zip(self._tags, self.history(), strict=True):
            if tag[0] == "draw":
                state.apply_action(rng.choice([c for c, _ in state.chance_outcomes()]))
            else:
                state.apply_action(action)
        return state


def _full_text(obs: Observation) -> str:
    """The observation's text form plus what it leaves implicit (a key for ISMCTS)."""
    extra = [
        f"dealt: {format_cards(obs.dealt)}",
        f"phase {obs.phase.value}, to act {obs.to_act}, kitty taken {obs.kitty_taken}, "
        f"discard done {obs.discard_done}",
        f"picked for the give: {format_cards(obs.pending_give)}",
    ]
    return obs.to_text() + "\n" + "\n".join(extra)


class NineFiveTwoObserver:
    """OpenSpiel's PyObserver: the encoding as the tensor, the text forms as strings."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: NineFiveTwoState, player: int) -> None:
        """Fill :attr:`tensor` with *player*'s encoded observation."""
        obs = state.view(player)
        self.tensor[:] = 0.0 if obs is None else np.asarray(encode(obs), np.float32)

    def string_from(self, state: NineFiveTwoState, player: int) -> str:
        """The information-state text (perfect recall) or the observation's text form."""
        if self.perfect_recall:
            return state.information_text(player)
        obs = state.view(player)
        return f"seat {player}: dealing hand 1" if obs is None else obs.to_text()


pyspiel.register_game(_GAME_TYPE, NineFiveTwoGame)
