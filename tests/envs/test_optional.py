"""The optional-dependency check itself: a missing extra fails on CI and skips elsewhere."""

from __future__ import annotations

import pytest

from tests.envs.optional import require


def test_a_missing_extra_fails_on_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="the 'demo' extra"):
        require("arena_no_such_module", "demo")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="arena_no_such_module is not installed"):
        require("arena_no_such_module", "demo")
    assert require("json", "none").__name__ == "json"  # control: a present module imports
