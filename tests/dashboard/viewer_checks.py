"""Checks of the replay viewer in Chromium, shared by its browser tests: what each seat
view's DOM shows at every step of an autoplayed hand, against the observer's table."""

from __future__ import annotations

from typing import Any

from arena.replay.steps import Replay

RECORDER = """() => {
  // Every drawing of the viewer: its step, its view and the card ids in the DOM then.
  window.__drawn = [];
  const note = () => window.__drawn.push({
    step: Number(document.body.dataset.step),
    view: document.body.dataset.view,
    cards: Array.from(document.querySelectorAll("[data-card]"), (e) => e.dataset.card),
  });
  note();
  new MutationObserver(note).observe(document.getElementById("viewer"),
    {subtree: true, childList: true, characterData: true});
}"""


def autoplay_hand(frame: Any, view: str, last_step: int) -> list[dict[str, Any]]:
    """In *frame* (a Playwright page or frame showing the viewer): pick *view* (``a``,
    ``0``, ``1``, ``2``), go to the first step, autoplay at the fastest speed until
    *last_step* and pause; what the viewer drew meanwhile."""
    frame.evaluate(RECORDER)
    frame.click(f"#view-{view}")
    frame.select_option("#hand", "1")
    frame.press("body", "Home")
    frame.select_option("#speed", "60")
    frame.click("#play")
    frame.wait_for_function(
        "(last) => Number(document.body.dataset.step) >= last",
        arg=last_step,
        timeout=60_000,
        polling=20,
    )
    frame.click("#play")  # pause
    drawn: list[dict[str, Any]] = frame.evaluate("window.__drawn")
    return drawn


def leaks(drawn: list[dict[str, Any]], replay: Replay) -> list[tuple[int, str, set[str]]]:
    """``(step, view, cards)`` wherever a seat view's DOM showed a card its table view (the
    observer's, :meth:`Replay.view`) does not let it see."""
    found: list[tuple[int, str, set[str]]] = []
    for drawing in drawn:
        if drawing["view"] == "a":
            continue
        allowed = {
            str(c) for c in replay.view(drawing["step"], int(drawing["view"])).visible_cards()
        }
        extra = set(drawing["cards"]) - allowed
        if extra:
            found.append((drawing["step"], drawing["view"], extra))
    return found


def hand_one_last_step(replay: Replay) -> int:
    """The index of the last step of hand 1."""
    return replay.hand_starts[2] - 1 if 2 in replay.hand_starts else len(replay.steps) - 1


FAST_AUTOPLAY = """() => {
  // The viewer's autoplay timer (its setInterval, looked up when Play is pressed) at 5 ms
  // a step instead of the fastest option's 60: a hand's sixty-odd steps take a third of a
  // second instead of four, and each step is still its own task, drawn and recorded
  // before the next.
  const setIntervalAsWritten = window.setInterval;
  window.setInterval = (handler, ms, ...rest) =>
    setIntervalAsWritten(handler, Math.min(Number(ms) || 0, 5), ...rest);
}"""
"""Evaluated in the viewer's own document once it is drawn (never in a page around it,
whose timers are not the viewer's): what an autoplay draws is the subject, not how long
it waits between steps."""
