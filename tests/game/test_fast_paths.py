"""The engine's speed-ups change no result: each fast path against its plain form.

* Records are pinned: the digests below were made by the engine before the speed-ups, so
  any change in deals, plays, winners or scoring shows up as a different digest.
* The deal's HMAC from precomputed pad states is HMAC-SHA256, and the inlined Fisher-Yates
  (with its rare extra block) reads the byte stream exactly as ``_ByteStream.below`` does.
* The trick winner, inlined in ``apply`` with a table, agrees with the independent oracle
  (tests/oracle) on every trick of random games in every preset.
* ``clone()`` shares the logs of completed hands: the original's record must not move.
* The mask-to-cards tables are filled on first use: every pattern gives its cards, and a
  process that only imports the SDK builds none of them (they cost every bot's exit).
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

import arena.game
from arena.game import PRESETS, GameState, dealing
from arena.game.cards import CARDS, SUIT_PATTERNS, cards_in, cards_of_suit, suit_cards
from arena.game.dealing import KeyedDeals, deal_out
from arena.game.record import game_record
from arena.game.state import trick_winner
from arena.simulate import make_policies, play_game
from tests.oracle import rules_oracle
from tests.presets import every_preset

RECORD_DIGESTS = {
    "classic": "98052c05923876d6a82509cf0b8428e0f080254d92ab9d3fcd0ba8c79258b96a",
    "classic-show": "c4482b03da73bcf1153bd6ede9658e966e7b9094363b2bde57c1e5add501af52",
    "classic-pm15": "e3a11aaa86b8555b1caccac8cd8012876fd631d6d3bf8485b6c5da01868b8d1c",
    "nine-two-five": "e0cf98c4d3865a8f430c226ab6616e8cf9387673a073d7301378588558df4a4c",
    "catalan": "22e3bfa7d9d4e1bd04134035648aa692370a93c519dc4a991b17c7dcadc05a89",
    "catalan-plus-minus": "d81dc197fb9cb99902cd39e32505ca0c0a071154c3ca2675f95aa7a1264018ec",
}
"""sha256 of the JSON records (sorted keys) of seeds 0-2, made before the speed-ups."""


def _records_digest(preset: str) -> str:
    digest = hashlib.sha256()
    for seed in range(3):
        lineup = [("random", "random", "random"), ("greedy", "random", "greedy")][seed % 2]
        state = play_game(PRESETS[preset], seed, make_policies(lineup, seed))
        digest.update(json.dumps(game_record(state, list(lineup)), sort_keys=True).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("preset", every_preset())
def test_records_are_those_of_the_engine_before_the_speed_ups(preset: str) -> None:
    assert _records_digest(preset) == RECORD_DIGESTS[preset]


def test_the_record_digest_sees_one_changed_trick() -> None:
    """Control: the digest is sensitive to a single winner in a single record."""
    state = play_game(PRESETS["classic"], 0, make_policies(["random"] * 3, 0))
    record = game_record(state, ["random"] * 3)
    plain = json.dumps(record, sort_keys=True)
    trick = record["hands"][0]["tricks"][0]
    trick["winner"] = (trick["winner"] + 1) % 3
    assert json.dumps(record, sort_keys=True) != plain


def test_the_deal_hmac_is_hmac_sha256() -> None:
    rng = random.Random(3)
    for _ in range(200):
        seed = rng.randrange(1 << 256)
        message = rng.randbytes(rng.randrange(0, 80))
        key = seed.to_bytes(32, "big")
        assert KeyedDeals(seed)._block(message) == hmac.digest(key, message, "sha256")
    # Control: another key gives another block.
    assert KeyedDeals(1)._block(b"m") != hmac.digest((2).to_bytes(32, "big"), b"m", "sha256")


def _reference_deal(seed: int, number: int, dealer: int) -> tuple[tuple[int, int, int], int]:
    """The shuffle as the docs state it: Fisher-Yates from the top, one byte per position
    from the hand's byte stream by rejection (``_ByteStream.below``)."""
    stream = dealing._ByteStream(
        seed.to_bytes(32, "big"), b"arena952/hand" + number.to_bytes(4, "big")
    )
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deal_out(deck, dealer)


def test_the_inlined_shuffle_reads_the_stream_as_documented() -> None:
    rng = random.Random(4)
    for _ in range(300):
        seed, number, dealer = rng.randrange(1 << 256), rng.randrange(1, 100), rng.randrange(3)
        assert KeyedDeals(seed).deal(number, dealer) == _reference_deal(seed, number, dealer)


def _pure_dealing() -> ModuleType:
    """A private, interpreted copy of arena/game/dealing.py, so its functions can be patched
    even when the compiled build is in use (compiled classes cannot be patched)."""
    path = Path(arena.game.__file__).parent / "dealing.py"
    spec = importlib.util.spec_from_file_location("_dealing_source", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shuffle_fetches_more_blocks_after_many_rejections() -> None:
    """Blocks whose bytes are often 255 (rejected by every position but 256's divisors)
    push the shuffle past its first two blocks: it must still read as documented."""
    source: Any = _pure_dealing()  # patched below, so typed loosely
    real_digest = hmac.digest

    def skewed(key: bytes, message: bytes, digest: str = "sha256") -> bytes:
        block = bytearray(real_digest(key, message, digest))
        for k in range(0, 32, 3):
            block[k] = 255  # a third of the bytes are rejected almost everywhere
        return bytes(block)

    source.KeyedDeals._block = lambda self, message: skewed(self._key, message)
    source.hmac = SimpleNamespace(digest=skewed)  # what _ByteStream reads
    refills: list[int] = []
    refill = source._ByteStream._refill

    def counting_refill(self: Any) -> None:
        refills.append(self._counter)
        refill(self)

    source._ByteStream._refill = counting_refill
    for seed in range(40):
        stream = source._ByteStream(
            seed.to_bytes(32, "big"), b"arena952/hand" + bytes([0, 0, 0, 1])
        )
        deck = list(range(52))
        for i in range(51, 0, -1):
            j = stream.below(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        assert source.KeyedDeals(seed).deal(1, 0) == deal_out(deck, 0)
    assert max(refills) >= 2  # control: a third block was really needed


def test_trick_winners_agree_with_the_oracle() -> None:
    rng = random.Random(5)
    suits = {"S": 0, "H": 1, "D": 2, "C": 3, "NT": None}
    for _ in range(20000):
        cards = rng.sample(range(52), 3)
        leader, trump = rng.randrange(3), rng.choice(list(suits))
        expected = rules_oracle.trick_winner([str(CARDS[c]) for c in cards], leader, trump)
        assert trick_winner(cards, leader, suits[trump]) == expected


@pytest.mark.parametrize("preset", every_preset())
def test_every_played_trick_has_the_oracle_s_winner(preset: str) -> None:
    """The winner inlined in apply() against the oracle, on the tricks of random games."""
    rng = random.Random(6)
    tricks = 0
    for seed in range(6):
        state = GameState(PRESETS[preset], seed)
        while not state.is_over:
            state.apply(rng.choice(state.legal_actions()))
        for hand in state.history:
            assert hand.trump is not None
            for trick in hand.tricks:
                texts = [str(c) for c in trick.cards]
                assert trick.winner == rules_oracle.trick_winner(
                    texts, trick.leader, str(hand.trump)
                )
                tricks += 1
    assert tricks >= 6 * 16


def test_a_clone_shares_completed_hands_without_changing_them() -> None:
    rng = random.Random(7)
    state = GameState(PRESETS["classic-pm15"], 11)
    while state.hand.number < 3:
        state.apply(rng.choice(state.legal_actions()))
    twin = state.clone()
    assert twin.history[0] is state.history[0]  # shared, as documented
    assert twin.hand is not state.hand
    before = json.dumps(game_record(state, ["a", "b", "c"]), sort_keys=True)
    while not twin.is_over:
        twin.apply(rng.choice(twin.legal_actions()))
    assert json.dumps(game_record(state, ["a", "b", "c"]), sort_keys=True) == before
    assert twin.hands_played > state.hands_played  # control: the twin really moved on


def test_every_suit_pattern_gives_its_cards_in_order() -> None:
    for suit in range(4):
        for pattern in range(SUIT_PATTERNS):
            expected = tuple(CARDS[13 * suit + r] for r in range(13) if pattern >> r & 1)
            assert suit_cards(suit, pattern) == expected
            assert cards_of_suit(pattern << (13 * suit), suit) == expected
    rng = random.Random(3)
    for _ in range(2000):
        mask = rng.getrandbits(52)
        assert cards_in(mask) == tuple(c for c in CARDS if mask >> c & 1)


def _patterns_built_after(code: str) -> int:
    probe = (
        f"{code}\nfrom arena.game.cards import SUIT_TABLES\n"
        "print(sum(cards is not None for table in SUIT_TABLES for cards in table))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return int(done.stdout)


def test_importing_the_sdk_builds_no_card_table() -> None:
    assert _patterns_built_after("import arena.sdk") == 0
    # Control: the count sees patterns that a game does build.
    game = (
        "from arena.game import PRESETS, GameState\n"
        "state = GameState(PRESETS['classic'], 1)\n"
        "for _ in range(40): state.apply(state.legal_actions()[0])"
    )
    assert _patterns_built_after(game) > 0
