"""The conversion caches of :mod:`arena.protocol.memo` never hand out a stale value.

Each test that two observations differing in one repeated part decode apart runs again
with the caches keyed by position (the kind of key a referee could make stale): then it
must fail, which shows it can.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from arena.game import PRESETS, Observation
from arena.game.observation import HandSummary, LegView, ShowView, TrickView
from arena.protocol import observations
from arena.protocol.memo import DecodeCache, EncodeCache
from arena.protocol.observations import (
    observation_from_proto,
    observation_to_proto,
    trick_from_proto,
    trick_to_proto,
)
from arena.protocol.wire import ProtocolError, decode_cards
from arena.v1 import arena_pb2 as pb
from tests.protocol.test_observations import random_game_observations

DECODE_CACHES = ("RULES", "LEGS", "SHOWN", "TRICKS", "SUMMARIES")
ENCODE_CACHES = ("TRICK_MESSAGES", "SUMMARY_MESSAGES")


@functools.cache
def _rich() -> Observation:
    """An observation with every repeated part: rules, previous hand, history, tricks,
    exchange legs and a dealer show."""
    for seed in range(40):
        for obs in random_game_observations(PRESETS["classic-show"], seed):
            parts = (obs.previous_deltas, obs.history, obs.tricks, obs.exchange, obs.shown)
            if all(parts):
                return obs
    raise AssertionError("no observation with every repeated part in 40 games")


def _one_changed(obs: Observation, part: str) -> Observation:
    """*obs* with one value of one repeated part changed, and nothing else."""
    if part == "rules":
        return dataclasses.replace(
            obs, rules=dataclasses.replace(obs.rules, target=obs.rules.target + 1)
        )
    if part == "previous hand":
        assert obs.previous_deltas is not None
        d = obs.previous_deltas
        return dataclasses.replace(obs, previous_deltas=(d[0] + 1, d[1], d[2]))
    if part == "history entry":
        first = obs.history[0]
        changed = dataclasses.replace(first, deltas=(first.deltas[0] + 1, *first.deltas[1:]))
        return dataclasses.replace(obs, history=(changed, *obs.history[1:]))
    if part == "trick":
        first_trick = obs.tricks[0]
        assert first_trick.winner is not None
        changed_trick = dataclasses.replace(first_trick, winner=(first_trick.winner + 1) % 3)
        return dataclasses.replace(obs, tricks=(changed_trick, *obs.tricks[1:]))
    if part == "exchange leg":
        leg = dataclasses.replace(obs.exchange[0], count=obs.exchange[0].count + 1)
        return dataclasses.replace(obs, exchange=(leg, *obs.exchange[1:]))
    assert part == "show"
    show = dataclasses.replace(obs.shown[0], to=(obs.shown[0].to + 1) % 3)
    return dataclasses.replace(obs, shown=(show, *obs.shown[1:]))


def _wire(obs: Observation) -> pb.Observation:
    return pb.Observation.FromString(observation_to_proto(obs).SerializeToString())


def _decodes_apart(part: str) -> bool:
    """Decode the rich observation, then the one with *part* changed: is each decoded as
    itself (the second not served from what the first put in the caches)?"""
    changed = _one_changed(_rich(), part)
    assert changed != _rich()
    first = observation_from_proto(_wire(_rich()))
    second = observation_from_proto(_wire(changed))
    again = observation_from_proto(_wire(_rich()))
    return first == _rich() and second == changed and again == _rich()


class _PositionKeyed(DecodeCache[Any, Any]):
    """The control: a cache keyed by where the part sits, not by what it holds."""

    def __call__(self, msg: Any, where: str) -> Any:
        if where not in self._values:
            self._values[where] = self._decode(msg, where)
        return self._values[where]

    def each(self, msgs: Iterable[Any], where: str) -> tuple[Any, ...]:
        return tuple(self(msg, f"{where}[{i}]") for i, msg in enumerate(msgs))


def _clear_caches() -> None:
    for name in DECODE_CACHES + ENCODE_CACHES:
        getattr(observations, name).clear()


@pytest.fixture
def cold_caches() -> Iterator[None]:
    """Every cache empty before the test and after it (a control plants wrong entries),
    so no test's parts can serve another's."""
    _clear_caches()
    yield
    _clear_caches()


PARTS = ["rules", "previous hand", "history entry", "trick", "exchange leg", "show"]


@pytest.mark.usefixtures("cold_caches")
@pytest.mark.parametrize("part", PARTS)
def test_a_changed_repeated_part_decodes_as_itself(part: str) -> None:
    assert _decodes_apart(part)


@pytest.mark.usefixtures("cold_caches")
@pytest.mark.parametrize("part", [p for p in PARTS if p != "previous hand"])  # not cached
def test_control_caches_keyed_by_position_serve_stale_parts(
    part: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in DECODE_CACHES:
        real = getattr(observations, name)
        monkeypatch.setattr(observations, name, _PositionKeyed(real._decode, real.limit))
    assert not _decodes_apart(part)


@pytest.mark.usefixtures("cold_caches")
def test_encoding_with_warm_caches_gives_the_same_bytes() -> None:
    """Every observation of a game: the bytes built with the caches as the game filled
    them equal the bytes built with empty caches."""
    for obs in random_game_observations(PRESETS["classic-show"], 3):
        warm = observation_to_proto(obs).SerializeToString()
        for name in ENCODE_CACHES:
            getattr(observations, name).clear()
        assert observation_to_proto(obs).SerializeToString() == warm


@pytest.mark.usefixtures("cold_caches")
def test_control_a_wrong_encoded_trick_is_seen_in_the_bytes() -> None:
    """The check above can fail: a cached message that is not its trick's changes the bytes."""
    trick = _rich().tricks[0]
    warm = observation_to_proto(_rich()).SerializeToString()
    observations.TRICK_MESSAGES.clear()
    observations.TRICK_MESSAGES._values[trick] = trick_to_proto(
        _one_changed(_rich(), "trick").tricks[0]
    )
    assert observation_to_proto(_rich()).SerializeToString() != warm


def _counting(decode: Callable[[Any, str], Any]) -> tuple[Callable[[Any, str], Any], list[int]]:
    calls = [0]

    def counted(msg: Any, where: str) -> Any:
        calls[0] += 1
        return decode(msg, where)

    return counted, calls


def _trick(leader: int, winner: int) -> pb.Trick:
    return pb.Trick(leader=leader, cards=["AS", "KS", "QS"], winner=winner)


def test_a_cache_stays_bounded_and_forgets_the_oldest_first() -> None:
    decode, calls = _counting(trick_from_proto)
    cache = DecodeCache(decode, limit=4)
    tricks = [_trick(leader, winner) for leader in range(3) for winner in range(3)]  # 9 kinds
    for trick in tricks:
        cache(trick, "t")
    assert len(cache) == 4
    assert calls[0] == 9
    assert cache.each(tricks[-4:], "t") == tuple(trick_from_proto(t, "t") for t in tricks[-4:])
    assert calls[0] == 9  # the last four were kept
    cache(tricks[0], "t")
    assert calls[0] == 10  # the first was forgotten
    assert len(cache) == 4


def test_a_cache_keeps_at_least_one_value() -> None:
    with pytest.raises(ValueError, match="at least one"):
        DecodeCache(trick_from_proto, limit=0)
    with pytest.raises(ValueError, match="at least one"):
        EncodeCache(trick_to_proto, limit=0)


def test_errors_are_never_cached() -> None:
    decode, calls = _counting(trick_from_proto)
    cache = DecodeCache(decode, limit=4)
    bad = pb.Trick(leader=0, cards=["AS", "XX"])
    for _ in range(2):
        with pytest.raises(ProtocolError, match=r"tricks\[1\]\.cards\[1\]: not a card: 'XX'"):
            cache.each([_trick(0, 1), bad], "tricks")
    assert calls[0] == 3  # the good trick once, the bad one each time
    assert len(cache) == 1


def _frozen_values(value: object) -> Iterator[str]:
    """Every part of *value* that a bot could change in place (empty if none)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if not type(value).__dataclass_params__.frozen:  # type: ignore[attr-defined]
            yield type(value).__name__
        for field in dataclasses.fields(value):
            yield from _frozen_values(getattr(value, field.name))
    elif isinstance(value, tuple):
        for item in value:
            yield from _frozen_values(item)
    elif not isinstance(value, (int, str, enum.Enum, type(None))):
        yield type(value).__name__


def test_cached_parts_are_immutable_so_sharing_them_is_safe() -> None:
    decoded = observation_from_proto(_wire(_rich()))
    shared = (decoded.rules, decoded.history, decoded.tricks, decoded.exchange, decoded.shown)
    assert list(_frozen_values(shared)) == []
    assert {type(v) for v in (decoded.history[0], decoded.tricks[0])} == {HandSummary, TrickView}
    assert {type(v) for v in (decoded.exchange[0], decoded.shown[0])} == {LegView, ShowView}


def test_control_the_immutability_walk_finds_mutable_parts() -> None:
    @dataclasses.dataclass
    class Loose:
        cards: list[int]

    assert list(_frozen_values((Loose([1]),))) == ["Loose", "list"]


def test_decode_cards_names_the_bad_index() -> None:
    assert decode_cards(["TS", "2C"], "w") == (decode_cards(["TS"], "w")[0], 13 * 3)
    with pytest.raises(ProtocolError, match=r"^w\[1\]: not a card: 'ts'"):
        decode_cards(["TS", "ts", "AS"], "w")
    with pytest.raises(ProtocolError, match=r"^w\[0\]: not a card"):
        decode_cards([["TS"]], "w")  # type: ignore[list-item]  # unhashable, as a hostile caller
