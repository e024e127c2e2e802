"""Text that bot authors and organisers chose shows literally on every page: no planted
image (a tracking pixel every spectator's browser would fetch), link, formula, colour,
icon or emoji; a hostile ``?game=`` is a missing game, not a traceback; spectators see no
server path and no pid.

The pages run under Streamlit's ``AppTest`` on a seeded database whose bot versions, main
tournament name and fault details are hostile. The Markdown each page sends is parsed with
markdown-it (CommonMark, as Streamlit's frontend parses it) and checked for what got
through; each check has a control (the same page with :func:`dashboard.text.md` made a
no-op, or the visitor an organiser) that shows it can fail.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import streamlit as st
from markdown_it import MarkdownIt
from sqlalchemy import text
from streamlit.testing.v1 import AppTest

from arena import storage
from arena.ratings.sprt import SprtSettings
from arena.tournament import compare, setup
from dashboard import actions
from dashboard import text as dashboard_text
from dashboard.text import JOINER, code, md
from tests.dashboard.accounts_support import add_account, log_in
from tests.dashboard.seed import Seeded, seeded_sqlite
from tests.replay.support import embedded, viewer_documents

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"

VERSIONS = {
    "alpha": "![](//evil.test/v.png)",
    "bravo": ":material/bolt::red[X]$x^2$",
    "charlie": "www.evil.test",
    "delta": "[x](https://evil.test):smile:",
}
"""Hostile manifest versions (at most 32 characters, no spaces, no ``@``)."""
LABELS = {f"{name}@1.0": f"{name}@{version}" for name, version in VERSIONS.items()}
"""Seeded label -> hostile label."""
TOURNAMENT = "main ![t](//evil.test/t.png) :blue[x] $t$ <b>x</b> *y*"
DETAIL = "not a card: '[x](//evil.test)' ![i](//evil.test/i.png) x@evil.test :red[!]"

_MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_TAGS = re.compile(r"<(?:img|a|em|del|table|h\d|hr|ul|ol|li|blockquote|pre)\b")
_STREAMLIT_SYNTAX = re.compile(
    r":(?:red|blue)\[|:material[/_]\w+:|:smile:|https?://|www\.evil|x@evil"
)
"""Streamlit's extensions in the *parsed* text, where its frontend looks for them: the
payloads' colour directives, icons and emoji, and GFM autolinks."""
_ANY_SHORTCODE = re.compile(r":[\w+/-]")
"""Any directive, icon or emoji shortcode: for hostile text alone (pages have badges)."""


def rendered(source: str) -> str:
    """The text a Markdown source shows, joiners dropped."""
    parsed = re.sub(r"<[^>]+>", "", _MARKDOWN.render(source))
    return html.unescape(parsed).replace(JOINER, "").strip()


def injections(source: str, *, strict: bool = False) -> list[str]:
    """What of a hostile payload in *source* is Markdown rather than text; *strict*: any
    shortcode counts (for hostile text alone: pages have status badges)."""
    parsed = html.unescape(re.sub(r"<[^>]+>", "", _MARKDOWN.render(source)))
    found = _TAGS.findall(_MARKDOWN.render(source)) + _STREAMLIT_SYNTAX.findall(parsed)
    if strict:
        found += _ANY_SHORTCODE.findall(parsed)
    return found + re.findall(r"(?<!\\)\$", source)  # an unescaped $ opens LaTeX


def sources(app: AppTest) -> list[str]:
    """Every Markdown source of the page: bodies, headings, alerts and labels."""
    parts: list[str] = []
    for kind in ("markdown", "caption", "title", "header", "subheader"):
        parts += [str(e.value) for e in getattr(app, kind)]
    for kind in ("info", "warning", "error", "success"):
        parts += [str(e.value) for e in getattr(app, kind)]
    parts += [e.label for e in app.expander] + [t.label for t in app.tabs]
    parts += [m.label for m in app.metric]
    for radio in app.radio:
        parts += [radio.label, *(str(o) for o in radio.options)]
    return parts


# ------------------------------------------------------------------ the helper itself

HOSTILE = [
    *VERSIONS.values(),
    TOURNAMENT,
    DETAIL,
    "line one\n\n# heading\n- item\n| a | b |\n|---|---|",
    "1. not a list",
    " - not a list either",
    "--- ",
    "&#58;smile&#58; &lt;b&gt; https&#58;//evil.test",
    "`code` \\*x\\* __b__ ~~s~~ <https://evil.test> <i>x</i>",
    ":streamlit: :+1: :orange-badge[x] :small[x] :color[x]{foreground=red}",
]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_md_shows_the_text_itself(hostile: str) -> None:
    assert injections(hostile, strict=True)  # the control: raw, the payload is Markdown
    escaped = md(hostile)
    assert injections(escaped, strict=True) == []
    assert rendered(escaped) == " ".join(hostile.split("\n")).strip()


@pytest.mark.parametrize(
    "plain",
    [
        "random_bot@1.0.0",
        "alpha@1.0",
        "1.0.0+build",
        "no answer in 1050 ms",
        "a: b",
        "deals are predictable (--seed 42)",
        "♠ 10 é",
    ],
)
def test_md_leaves_ordinary_text_alone(plain: str) -> None:
    assert md(plain) == plain
    assert md(f"{plain}*") != f"{plain}*"  # the control: it does escape


def test_code_spans_hold_backticks() -> None:
    hostile = "a`![](//evil.test/v.png)`b"
    assert "<img" in _MARKDOWN.render(f"`{hostile}`")  # the control: a naive span breaks
    assert _MARKDOWN.render(code(hostile)).strip() == f"<p><code>{html.escape(hostile)}</code></p>"


# ------------------------------------------------------------------ the pages


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    """The seeded database with hostile versions, tournament name and fault details, a
    ladder and a version test of those versions."""
    seeded = seeded_sqlite(tmp_path_factory.mktemp("hostile") / "arena.db")
    with seeded.engine.begin() as db:
        for name, version_id in seeded.versions.items():
            db.execute(
                text("UPDATE bot_version SET version = :v, label = :l WHERE id = :id"),
                {"v": VERSIONS[name], "l": LABELS[f"{name}@1.0"], "id": version_id},
            )
        db.execute(
            text("UPDATE tournament SET name = :n WHERE id = :id"),
            {"n": TOURNAMENT, "id": seeded.tournament_id},
        )
        games = db.execute(
            text("SELECT id, record FROM game WHERE tournament_id = :t"),
            {"t": seeded.tournament_id},
        ).all()
        for game_id, record_text in games:
            record = json.loads(record_text)
            record["players"] = [LABELS[p] for p in record["players"]]
            for fault in record.get("faults") or []:
                fault["detail"] = DETAIL
            db.execute(
                text("UPDATE game SET record = :r WHERE id = :id"),
                {"r": json.dumps(record), "id": game_id},
            )
    setup.create_tournament(
        seeded.engine,
        by=storage.actor(seeded.engine),
        name="ladder",
        ruleset="classic",
        bots=list(VERSIONS),
        boards=1,
        seed=3,
        format_name="ladder",
        ladder=setup.LadderOptions(games=60),
    )
    compare.create_version_test(
        seeded.engine,
        candidate="alpha",
        baseline="bravo",
        opponents=["charlie", "delta"],
        sprt=SprtSettings(margin=1.0, min_boards=3),
        max_boards=8,
        name="vt",
    )
    yield seeded
    seeded.engine.dispose()


@pytest.fixture
def open_page(
    hostile: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Callable[..., AppTest]:
    """``open_page(page, **query)``: a page of the hostile arena, seen by a spectator, or
    by an organiser with ``organiser=True`` (fault details are the bot owner's and the
    organisers' only: docs/security.md, section 16)."""
    monkeypatch.setenv("ARENA_DB", hostile.url)
    monkeypatch.setenv("ARENA_DATA", str(tmp_path / "data"))

    def open_it(page: str, organiser: bool = False, **query: str) -> AppTest:
        st.cache_data.clear()  # lists are cached for seconds, across apps
        app = AppTest.from_file(str(APP), default_timeout=120)
        app.query_params.update(query)  # read on the first run, which remembers the choice
        app.run()
        if organiser:
            name = f"org{len(ORGANISERS)}"
            ORGANISERS.append(name)
            log_in(app, name, add_account(hostile.engine, name, "organiser"))
        app.switch_page(f"views/{page}.py").run()
        assert not app.exception, [e.value for e in app.exception]
        return app

    return open_it


ORGANISERS: list[str] = []
"""The organiser accounts made so far (each page visit that needs one makes its own)."""


def _faulty_game(hostile: Seeded) -> int:
    return hostile.game_ids[hostile.faulted[0][0]]


def _visit(page: str, hostile: Seeded, open_page: Callable[..., AppTest]) -> list[str]:
    """The Markdown sources of *page*, on the hostile tournament (and its faulty game)."""
    if page == "replays":
        app = open_page(
            page, organiser=True, tournament=TOURNAMENT, game=str(_faulty_game(hostile))
        )
        assert [h for h in app.subheader if h.value == "Faults"], "the faulty game lists it"
        return sources(app)
    if page == "bots":
        faulty = hostile.records[hostile.faulted[0][0]]["players"][hostile.faulted[0][1]]
        return sources(open_page(page, organiser=True, bot=LABELS[faulty].split("@")[0]))
    if page == "version_tests":
        return sources(open_page(page, test="vt"))
    return sources(open_page(page, tournament=TOURNAMENT))


PAGES = ["standings", "statistics", "replays", "bots", "tournaments", "ladder", "version_tests"]
SHOWN = {
    "standings": [TOURNAMENT],
    "statistics": [TOURNAMENT],
    "replays": [TOURNAMENT, DETAIL],  # and the faulty game's players
    "bots": [TOURNAMENT, DETAIL],
    "tournaments": [TOURNAMENT],
    "ladder": list(LABELS.values()),
    "version_tests": list(LABELS.values()),
}
"""What each page must show (literally) of the hostile text."""


@pytest.mark.parametrize("page", PAGES)
def test_hostile_text_shows_literally(
    page: str, hostile: Seeded, open_page: Callable[..., AppTest]
) -> None:
    shown = _visit(page, hostile, open_page)
    assert [(s, found) for s in shown if (found := injections(s))] == []
    texts = "\n".join(rendered(s) for s in shown)
    players = hostile.records[hostile.faulted[0][0]]["players"]
    for payload in SHOWN[page] + ([LABELS[p] for p in players] if page == "replays" else []):
        assert payload in texts, (payload, texts)


@pytest.mark.parametrize("page", PAGES)
def test_the_control_without_escaping_is_injected(
    page: str, hostile: Seeded, open_page: Callable[..., AppTest], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dashboard_text, "md", lambda text: text)
    monkeypatch.setattr(dashboard_text, "code", lambda text: f"`{text}`")
    shown = _visit(page, hostile, open_page)
    assert any(injections(s) for s in shown)


# ------------------------------------------------------------------ ?game= from the URL


@pytest.mark.parametrize(
    "game", ["\u00b2", "99999999999999999999999", "9" * 5000, "-1", " 7", "0x1f", "", "0"]
)
def test_a_hostile_game_link_is_no_game(
    game: str, hostile: Seeded, open_page: Callable[..., AppTest]
) -> None:
    app = open_page("replays", tournament=TOURNAMENT, game=game)  # no exception
    assert app.selectbox(key="replay_pick").value == hostile.game_ids[0]  # as without a link


def test_the_control_a_good_game_link_opens_it(
    hostile: Seeded, open_page: Callable[..., AppTest]
) -> None:
    wanted = hostile.game_ids[5]
    app = open_page("replays", tournament=TOURNAMENT, game=str(wanted))
    assert app.selectbox(key="replay_pick").value == wanted
    largest = open_page("replays", tournament=TOURNAMENT, game=str(2**63 - 1))
    assert largest.selectbox(key="replay_pick").value == hostile.game_ids[0]


@pytest.mark.parametrize("step", ["\u00b2", "9" * 5000, "-1", " 3", "0x1f", "", "3.0", "1e3"])
def test_a_hostile_step_link_opens_the_first_step(
    step: str, hostile: Seeded, open_page: Callable[..., AppTest]
) -> None:
    wanted = hostile.game_ids[5]
    app = open_page("replays", tournament=TOURNAMENT, game=str(wanted), step=step)
    (document,) = viewer_documents(app)  # no exception, and the viewer is there
    assert embedded(document, "options")["start_step"] == 0


def test_the_control_a_good_step_link_opens_that_step(
    hostile: Seeded, open_page: Callable[..., AppTest]
) -> None:
    wanted = hostile.game_ids[5]
    app = open_page("replays", tournament=TOURNAMENT, game=str(wanted), step="7")
    (document,) = viewer_documents(app)
    assert embedded(document, "options")["start_step"] == 7


@pytest.mark.parametrize("damage", ['{"format": "arena952.game/1", "hands": [', "[]", "null"])
def test_a_damaged_stored_record_is_a_message_not_a_traceback(
    damage: str, hostile: Seeded, open_page: Callable[..., AppTest]
) -> None:
    wanted = hostile.game_ids[3]
    with hostile.engine.begin() as connection:
        kept = connection.execute(
            text("SELECT record FROM game WHERE id = :id"), {"id": wanted}
        ).scalar_one()
        connection.execute(
            text("UPDATE game SET record = :r WHERE id = :id"), {"r": damage, "id": wanted}
        )
    try:
        # Control: the storage layer itself refuses it (it used to raise a JSON error).
        with pytest.raises(storage.StorageError, match=f"game {wanted}"):
            storage.game_record(hostile.engine, wanted)
        app = open_page("replays", tournament=TOURNAMENT, game=str(wanted))  # no exception
        assert any("does not replay" in e.value for e in app.error)
    finally:
        with hostile.engine.begin() as connection:
            connection.execute(
                text("UPDATE game SET record = :r WHERE id = :id"), {"r": kept, "id": wanted}
            )


# ------------------------------------------------------------------ organisers only


def _code_and_texts(app: AppTest) -> str:
    return "\n".join([*sources(app), *(str(c.value) for c in app.code)])


def test_a_spectator_sees_no_stored_path(
    hostile: Seeded, open_page: Callable[..., AppTest]
) -> None:
    app = open_page("bots", bot="alpha")
    assert "/bots/alpha" not in _code_and_texts(app)
    assert "Stored copy" not in _code_and_texts(app)
    password = add_account(hostile.engine, "olga", "organiser")
    log_in(app, "olga", password)  # the control: an organiser sees it
    assert "/bots/alpha" in _code_and_texts(app)


@pytest.fixture
def running(hostile: Seeded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[int]:
    """The hostile tournament's runner, as this dashboard started it: its pid."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    runner = actions.RunnerProcess(TOURNAMENT, process, tmp_path / "runner.log")
    monkeypatch.setattr(actions, "runner", lambda name: runner if name == TOURNAMENT else None)
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def test_a_spectator_sees_no_runner_pid(
    hostile: Seeded, open_page: Callable[..., AppTest], running: int
) -> None:
    with hostile.engine.begin() as db:  # shown as running, not finished
        db.execute(
            text("UPDATE tournament SET status = 'running' WHERE id = :id"),
            {"id": hostile.tournament_id},
        )
    try:
        app = open_page("tournaments", tournament=TOURNAMENT)
        assert "Running in the background." in _code_and_texts(app)
        assert str(running) not in _code_and_texts(app)
        password = add_account(hostile.engine, "otto", "organiser")
        log_in(app, "otto", password)  # the control: an organiser sees it
        assert f"pid {running}" in _code_and_texts(app)
    finally:
        with hostile.engine.begin() as db:
            db.execute(
                text("UPDATE tournament SET status = 'finished' WHERE id = :id"),
                {"id": hostile.tournament_id},
            )
