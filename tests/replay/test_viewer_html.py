"""The viewer's page (``arena.viewer.viewer_html``): one self-contained document, its
frames embedded so that hostile bot text cannot end the script element or add markup."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

import arena.viewer
from arena.replay.frames import frames_json
from arena.replay.steps import build_replay
from arena.viewer import script_safe_json, viewer_html
from tests.replay.support import HOSTILE_NAME, seeded_record

HOSTILE_TITLE = "cup </title><script>alert(1)</script>"


class _Page(HTMLParser):
    """The tags of a document and the text of its script elements, as a browser parses it."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.scripts: dict[str, str] = {}
        self.title = ""
        self._in: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in = (tag, dict(attrs).get("id") or "")

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in is None:
            return
        tag, ident = self._in
        if tag == "script":
            self.scripts[ident] = self.scripts.get(ident, "") + data
        elif tag == "title":
            self.title += data


def _page(names: tuple[str, str, str]) -> tuple[str, str]:
    frames = frames_json(build_replay(seeded_record(names=names)))
    return frames, viewer_html(frames, start_step=4, title=HOSTILE_TITLE)


def _parsed(document: str) -> _Page:
    page = _Page()
    page.feed(document)
    page.close()
    return page


def test_hostile_names_stay_inside_the_json() -> None:
    frames, document = _page(("alpha", HOSTILE_NAME, "charlie\u2028&"))
    page = _parsed(document)
    assert "img" not in page.tags and page.tags.count("script") == 3
    assert json.loads(page.scripts["frames"]) == json.loads(frames)  # the same value
    assert json.loads(page.scripts["frames"])["players"][1] == HOSTILE_NAME
    assert json.loads(page.scripts["options"])["start_step"] == 4
    assert page.title == HOSTILE_TITLE  # as text: the parser saw no markup in it
    assert "http://" not in document.replace("http-equiv", "") and "https://" not in document


def test_the_control_unescaped_json_breaks_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena.viewer, "script_safe_json", lambda text: text)
    _, document = _page(("alpha", HOSTILE_NAME, "charlie"))
    assert "img" in _parsed(document).tags


def test_script_safe_json_escapes_what_ends_a_script() -> None:
    text = json.dumps(["</script>", "<!--", "a&b", "\u2028\u2029"], ensure_ascii=False)
    safe = script_safe_json(text)
    assert not set("<>&\u2028\u2029") & set(safe)
    assert json.loads(safe) == json.loads(text)


def test_the_page_is_one_document_with_its_own_script_and_style() -> None:
    _, document = _page(("a", "b", "c"))
    assert document.startswith("<!DOCTYPE html>") and "@@" not in document
    assert "<script src" not in document and "<link" not in document
    assert "default-src 'none'" in document  # no request leaves the page
