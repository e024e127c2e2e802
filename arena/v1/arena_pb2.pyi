from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Trump(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRUMP_UNSPECIFIED: _ClassVar[Trump]
    TRUMP_S: _ClassVar[Trump]
    TRUMP_H: _ClassVar[Trump]
    TRUMP_D: _ClassVar[Trump]
    TRUMP_C: _ClassVar[Trump]
    TRUMP_NT: _ClassVar[Trump]

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_GIVE: _ClassVar[DecisionKind]
    DECISION_KIND_TRUMP: _ClassVar[DecisionKind]
    DECISION_KIND_DISCARD: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_GIVE: _ClassVar[Phase]
    PHASE_TRUMP: _ClassVar[Phase]
    PHASE_DISCARD: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]

class LegStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEG_STATUS_UNSPECIFIED: _ClassVar[LegStatus]
    LEG_STATUS_PLANNED: _ClassVar[LegStatus]
    LEG_STATUS_GIVEN: _ClassVar[LegStatus]
    LEG_STATUS_DONE: _ClassVar[LegStatus]

class Step(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STEP_UNSPECIFIED: _ClassVar[Step]
    STEP_TRUMP: _ClassVar[Step]
    STEP_KITTY: _ClassVar[Step]
    STEP_EXCHANGE: _ClassVar[Step]
    STEP_GIVE: _ClassVar[Step]
    STEP_RETURN: _ClassVar[Step]

class FirstLeader(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIRST_LEADER_UNSPECIFIED: _ClassVar[FirstLeader]
    FIRST_LEADER_LEFT_OF_DEALER: _ClassVar[FirstLeader]
    FIRST_LEADER_DEALER: _ClassVar[FirstLeader]

class GiverPriority(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GIVER_PRIORITY_UNSPECIFIED: _ClassVar[GiverPriority]
    GIVER_PRIORITY_UPCOMING_CONTRACT: _ClassVar[GiverPriority]
    GIVER_PRIORITY_MOST_OVERTRICKS: _ClassVar[GiverPriority]

class NegativeRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NEGATIVE_ROLE_UNSPECIFIED: _ClassVar[NegativeRole]
    NEGATIVE_ROLE_ENDS_GAME: _ClassVar[NegativeRole]
    NEGATIVE_ROLE_OBJECTIVE: _ClassVar[NegativeRole]

class WinnerRule(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WINNER_RULE_UNSPECIFIED: _ClassVar[WinnerRule]
    WINNER_RULE_HIGHEST: _ClassVar[WinnerRule]
    WINNER_RULE_LARGEST_EXCESS: _ClassVar[WinnerRule]

class TieRule(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIE_RULE_UNSPECIFIED: _ClassVar[TieRule]
    TIE_RULE_EXTRA_HANDS: _ClassVar[TieRule]
    TIE_RULE_DRAW: _ClassVar[TieRule]
    TIE_RULE_POSITIVE_SIDE: _ClassVar[TieRule]

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_TARGET: _ClassVar[EndReason]
    END_REASON_NEGATIVE: _ClassVar[EndReason]
    END_REASON_OVERTIME: _ClassVar[EndReason]
    END_REASON_DRAW: _ClassVar[EndReason]
    END_REASON_CAPPED: _ClassVar[EndReason]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    FAULT_KIND_TIMEOUT: _ClassVar[FaultKind]
    FAULT_KIND_CRASH: _ClassVar[FaultKind]
    FAULT_KIND_ILLEGAL: _ClassVar[FaultKind]
    FAULT_KIND_PROTOCOL: _ClassVar[FaultKind]
    FAULT_KIND_STARTUP: _ClassVar[FaultKind]
TRUMP_UNSPECIFIED: Trump
TRUMP_S: Trump
TRUMP_H: Trump
TRUMP_D: Trump
TRUMP_C: Trump
TRUMP_NT: Trump
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_GIVE: DecisionKind
DECISION_KIND_TRUMP: DecisionKind
DECISION_KIND_DISCARD: DecisionKind
DECISION_KIND_PLAY: DecisionKind
PHASE_UNSPECIFIED: Phase
PHASE_GIVE: Phase
PHASE_TRUMP: Phase
PHASE_DISCARD: Phase
PHASE_PLAY: Phase
PHASE_OVER: Phase
LEG_STATUS_UNSPECIFIED: LegStatus
LEG_STATUS_PLANNED: LegStatus
LEG_STATUS_GIVEN: LegStatus
LEG_STATUS_DONE: LegStatus
STEP_UNSPECIFIED: Step
STEP_TRUMP: Step
STEP_KITTY: Step
STEP_EXCHANGE: Step
STEP_GIVE: Step
STEP_RETURN: Step
FIRST_LEADER_UNSPECIFIED: FirstLeader
FIRST_LEADER_LEFT_OF_DEALER: FirstLeader
FIRST_LEADER_DEALER: FirstLeader
GIVER_PRIORITY_UNSPECIFIED: GiverPriority
GIVER_PRIORITY_UPCOMING_CONTRACT: GiverPriority
GIVER_PRIORITY_MOST_OVERTRICKS: GiverPriority
NEGATIVE_ROLE_UNSPECIFIED: NegativeRole
NEGATIVE_ROLE_ENDS_GAME: NegativeRole
NEGATIVE_ROLE_OBJECTIVE: NegativeRole
WINNER_RULE_UNSPECIFIED: WinnerRule
WINNER_RULE_HIGHEST: WinnerRule
WINNER_RULE_LARGEST_EXCESS: WinnerRule
TIE_RULE_UNSPECIFIED: TieRule
TIE_RULE_EXTRA_HANDS: TieRule
TIE_RULE_DRAW: TieRule
TIE_RULE_POSITIVE_SIDE: TieRule
END_REASON_UNSPECIFIED: EndReason
END_REASON_TARGET: EndReason
END_REASON_NEGATIVE: EndReason
END_REASON_OVERTIME: EndReason
END_REASON_DRAW: EndReason
END_REASON_CAPPED: EndReason
FAULT_KIND_UNSPECIFIED: FaultKind
FAULT_KIND_TIMEOUT: FaultKind
FAULT_KIND_CRASH: FaultKind
FAULT_KIND_ILLEGAL: FaultKind
FAULT_KIND_PROTOCOL: FaultKind
FAULT_KIND_STARTUP: FaultKind

class BotMessage(_message.Message):
    __slots__ = ("hello", "action_reply")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_REPLY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action_reply: ActionReply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action_reply: _Optional[_Union[ActionReply, _Mapping]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "game_start", "decision_request", "hand_end", "game_end", "match_end", "fault")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    HAND_END_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    game_start: GameStart
    decision_request: DecisionRequest
    hand_end: HandEnd
    game_end: GameEnd
    match_end: MatchEnd
    fault: Fault
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., game_start: _Optional[_Union[GameStart, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., hand_end: _Optional[_Union[HandEnd, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., fault: _Optional[_Union[Fault, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "bot_name", "bot_version", "protocol_version")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    token: str
    bot_name: str
    bot_version: str
    protocol_version: int
    def __init__(self, token: _Optional[str] = ..., bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("request_id", "give", "trump", "discard", "play")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GIVE_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    give: GiveAction
    trump: TrumpAction
    discard: DiscardAction
    play: PlayAction
    def __init__(self, request_id: _Optional[int] = ..., give: _Optional[_Union[GiveAction, _Mapping]] = ..., trump: _Optional[_Union[TrumpAction, _Mapping]] = ..., discard: _Optional[_Union[DiscardAction, _Mapping]] = ..., play: _Optional[_Union[PlayAction, _Mapping]] = ...) -> None: ...

class GiveAction(_message.Message):
    __slots__ = ("legs",)
    class Leg(_message.Message):
        __slots__ = ("cards",)
        CARDS_FIELD_NUMBER: _ClassVar[int]
        cards: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...
    LEGS_FIELD_NUMBER: _ClassVar[int]
    legs: _containers.RepeatedCompositeFieldContainer[GiveAction.Leg]
    def __init__(self, legs: _Optional[_Iterable[_Union[GiveAction.Leg, _Mapping]]] = ...) -> None: ...

class TrumpAction(_message.Message):
    __slots__ = ("trump",)
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    trump: Trump
    def __init__(self, trump: _Optional[_Union[Trump, str]] = ...) -> None: ...

class DiscardAction(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class PlayAction(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("seat", "protocol_version", "match_id", "games_in_match", "time_control", "referee_version")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAMES_IN_MATCH_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    REFEREE_VERSION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    protocol_version: int
    match_id: str
    games_in_match: int
    time_control: TimeControl
    referee_version: str
    def __init__(self, seat: _Optional[int] = ..., protocol_version: _Optional[int] = ..., match_id: _Optional[str] = ..., games_in_match: _Optional[int] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., referee_version: _Optional[str] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_ms", "bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_id", "game_number", "games_in_match", "rules", "seat", "first_dealer", "players", "time_control")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    GAMES_IN_MATCH_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game_number: int
    games_in_match: int
    rules: RuleSet
    seat: int
    first_dealer: int
    players: _containers.RepeatedScalarFieldContainer[str]
    time_control: TimeControl
    def __init__(self, game_id: _Optional[str] = ..., game_number: _Optional[int] = ..., games_in_match: _Optional[int] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., seat: _Optional[int] = ..., first_dealer: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "observation", "clock")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    observation: Observation
    clock: Clock
    def __init__(self, request_id: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("decision_ms_left", "bank_ms_left")
    DECISION_MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    decision_ms_left: int
    bank_ms_left: int
    def __init__(self, decision_ms_left: _Optional[int] = ..., bank_ms_left: _Optional[int] = ...) -> None: ...

class HandEnd(_message.Message):
    __slots__ = ("summary", "tricks")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    summary: HandSummary
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    def __init__(self, summary: _Optional[_Union[HandSummary, _Mapping]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game_id", "result", "faults")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    result: GameResult
    faults: _containers.RepeatedCompositeFieldContainer[Fault]
    def __init__(self, game_id: _Optional[str] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ..., faults: _Optional[_Iterable[_Union[Fault, _Mapping]]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("games_played", "reason")
    GAMES_PLAYED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    games_played: int
    reason: str
    def __init__(self, games_played: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("kind", "decision", "hand", "detail", "autopilot", "seat", "request_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    AUTOPILOT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    kind: FaultKind
    decision: DecisionKind
    hand: int
    detail: str
    autopilot: bool
    seat: int
    request_id: int
    def __init__(self, kind: _Optional[_Union[FaultKind, str]] = ..., decision: _Optional[_Union[DecisionKind, str]] = ..., hand: _Optional[int] = ..., detail: _Optional[str] = ..., autopilot: _Optional[bool] = ..., seat: _Optional[int] = ..., request_id: _Optional[int] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "ruleset", "rules", "hand_number", "dealer", "contracts", "scores", "previous_hand", "dealt", "hand", "exchange", "trump", "kitty_taken", "kitty", "shown", "discard_done", "discards", "pending_give", "tricks", "current_trick", "tricks_won", "phase", "to_act", "request", "history", "result")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_HAND_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    DISCARD_DONE_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_FIELD_NUMBER: _ClassVar[int]
    PENDING_GIVE_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    ruleset: str
    rules: RuleSet
    hand_number: int
    dealer: int
    contracts: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    previous_hand: PreviousHand
    dealt: _containers.RepeatedScalarFieldContainer[str]
    hand: _containers.RepeatedScalarFieldContainer[str]
    exchange: _containers.RepeatedCompositeFieldContainer[Leg]
    trump: Trump
    kitty_taken: bool
    kitty: CardList
    shown: _containers.RepeatedCompositeFieldContainer[Show]
    discard_done: bool
    discards: CardList
    pending_give: _containers.RepeatedScalarFieldContainer[str]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    current_trick: Trick
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    phase: Phase
    to_act: int
    request: Request
    history: _containers.RepeatedCompositeFieldContainer[HandSummary]
    result: GameResult
    def __init__(self, seat: _Optional[int] = ..., ruleset: _Optional[str] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., contracts: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., previous_hand: _Optional[_Union[PreviousHand, _Mapping]] = ..., dealt: _Optional[_Iterable[str]] = ..., hand: _Optional[_Iterable[str]] = ..., exchange: _Optional[_Iterable[_Union[Leg, _Mapping]]] = ..., trump: _Optional[_Union[Trump, str]] = ..., kitty_taken: _Optional[bool] = ..., kitty: _Optional[_Union[CardList, _Mapping]] = ..., shown: _Optional[_Iterable[_Union[Show, _Mapping]]] = ..., discard_done: _Optional[bool] = ..., discards: _Optional[_Union[CardList, _Mapping]] = ..., pending_give: _Optional[_Iterable[str]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., current_trick: _Optional[_Union[Trick, _Mapping]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., request: _Optional[_Union[Request, _Mapping]] = ..., history: _Optional[_Iterable[_Union[HandSummary, _Mapping]]] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class CardList(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class PreviousHand(_message.Message):
    __slots__ = ("tricks_won", "deltas")
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    deltas: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, tricks_won: _Optional[_Iterable[int]] = ..., deltas: _Optional[_Iterable[int]] = ...) -> None: ...

class Leg(_message.Message):
    __slots__ = ("index", "giver", "receiver", "count", "status", "given", "returned")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    GIVER_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    GIVEN_FIELD_NUMBER: _ClassVar[int]
    RETURNED_FIELD_NUMBER: _ClassVar[int]
    index: int
    giver: int
    receiver: int
    count: int
    status: LegStatus
    given: CardList
    returned: CardList
    def __init__(self, index: _Optional[int] = ..., giver: _Optional[int] = ..., receiver: _Optional[int] = ..., count: _Optional[int] = ..., status: _Optional[_Union[LegStatus, str]] = ..., given: _Optional[_Union[CardList, _Mapping]] = ..., returned: _Optional[_Union[CardList, _Mapping]] = ...) -> None: ...

class Show(_message.Message):
    __slots__ = ("to", "cards")
    TO_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    to: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, to: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ...) -> None: ...

class HandSummary(_message.Message):
    __slots__ = ("number", "dealer", "contracts", "trump", "tricks_won", "deltas", "scores")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    number: int
    dealer: int
    contracts: _containers.RepeatedScalarFieldContainer[int]
    trump: Trump
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    deltas: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, number: _Optional[int] = ..., dealer: _Optional[int] = ..., contracts: _Optional[_Iterable[int]] = ..., trump: _Optional[_Union[Trump, str]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., deltas: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("winners", "reason", "scores", "hands_played")
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    reason: EndReason
    scores: _containers.RepeatedScalarFieldContainer[int]
    hands_played: int
    def __init__(self, winners: _Optional[_Iterable[int]] = ..., reason: _Optional[_Union[EndReason, str]] = ..., scores: _Optional[_Iterable[int]] = ..., hands_played: _Optional[int] = ...) -> None: ...

class Request(_message.Message):
    __slots__ = ("kind", "cards", "trump_options", "give_legs", "discard_count")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    GIVE_LEGS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    kind: DecisionKind
    cards: _containers.RepeatedScalarFieldContainer[str]
    trump_options: _containers.RepeatedScalarFieldContainer[Trump]
    give_legs: _containers.RepeatedCompositeFieldContainer[GiveLeg]
    discard_count: int
    def __init__(self, kind: _Optional[_Union[DecisionKind, str]] = ..., cards: _Optional[_Iterable[str]] = ..., trump_options: _Optional[_Iterable[_Union[Trump, str]]] = ..., give_legs: _Optional[_Iterable[_Union[GiveLeg, _Mapping]]] = ..., discard_count: _Optional[int] = ...) -> None: ...

class GiveLeg(_message.Message):
    __slots__ = ("receiver", "count")
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    receiver: int
    count: int
    def __init__(self, receiver: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class RuleSet(_message.Message):
    __slots__ = ("name", "contracts", "allow_no_trump", "first_hand_steps", "later_hand_steps", "first_leader", "giver_priority", "exchange_mandatory", "dealer_show", "target", "negative_target", "negative_role", "winner_rule", "tie_rule", "max_hands", "first_dealer")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    ALLOW_NO_TRUMP_FIELD_NUMBER: _ClassVar[int]
    FIRST_HAND_STEPS_FIELD_NUMBER: _ClassVar[int]
    LATER_HAND_STEPS_FIELD_NUMBER: _ClassVar[int]
    FIRST_LEADER_FIELD_NUMBER: _ClassVar[int]
    GIVER_PRIORITY_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_MANDATORY_FIELD_NUMBER: _ClassVar[int]
    DEALER_SHOW_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    NEGATIVE_TARGET_FIELD_NUMBER: _ClassVar[int]
    NEGATIVE_ROLE_FIELD_NUMBER: _ClassVar[int]
    WINNER_RULE_FIELD_NUMBER: _ClassVar[int]
    TIE_RULE_FIELD_NUMBER: _ClassVar[int]
    MAX_HANDS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    name: str
    contracts: _containers.RepeatedScalarFieldContainer[int]
    allow_no_trump: bool
    first_hand_steps: _containers.RepeatedScalarFieldContainer[Step]
    later_hand_steps: _containers.RepeatedScalarFieldContainer[Step]
    first_leader: FirstLeader
    giver_priority: GiverPriority
    exchange_mandatory: bool
    dealer_show: bool
    target: int
    negative_target: int
    negative_role: NegativeRole
    winner_rule: WinnerRule
    tie_rule: TieRule
    max_hands: int
    first_dealer: int
    def __init__(self, name: _Optional[str] = ..., contracts: _Optional[_Iterable[int]] = ..., allow_no_trump: _Optional[bool] = ..., first_hand_steps: _Optional[_Iterable[_Union[Step, str]]] = ..., later_hand_steps: _Optional[_Iterable[_Union[Step, str]]] = ..., first_leader: _Optional[_Union[FirstLeader, str]] = ..., giver_priority: _Optional[_Union[GiverPriority, str]] = ..., exchange_mandatory: _Optional[bool] = ..., dealer_show: _Optional[bool] = ..., target: _Optional[int] = ..., negative_target: _Optional[int] = ..., negative_role: _Optional[_Union[NegativeRole, str]] = ..., winner_rule: _Optional[_Union[WinnerRule, str]] = ..., tie_rule: _Optional[_Union[TieRule, str]] = ..., max_hands: _Optional[int] = ..., first_dealer: _Optional[int] = ...) -> None: ...
