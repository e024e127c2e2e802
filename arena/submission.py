"""Submitting a bot: validate, copy, build, smoke-test through the real referee, store.

A submitted version is an immutable copy of the bot's files under the data directory, so
a tournament always runs exactly what was submitted. Nothing is stored unless every step
passed: a broken manifest, a failing build or a faulty smoke game leaves no trace.

Sizes, file types and names are checked before any file is read (:func:`scan_bot`). The
stored checksum (:func:`checksum`) hashes an unambiguous listing of the files, and
:func:`verify_checksum` checks a stored copy against it whenever the version is loaded to
play; a stored copy's folder is never replaced or deleted.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import hashlib
import hmac
import json
import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Final

from sqlalchemy.engine import Engine

from arena import storage
from arena.game import PRESETS
from arena.game.policies import RandomPolicy
from arena.referee.errors import ArenaFault
from arena.referee.manifest import BotManifest, ManifestError, load_manifest
from arena.referee.match import MatchConfig, PolicySeat, SeatSpec, play_match
from arena.referee.timecontrol import TimeControl
from arena.sandbox.build.bot import STAMP_NAME, BuildError, build
from arena.storage import submissions
from arena.storage.bots import check_may_submit
from arena.storage.database import StorageError
from arena.storage.submissions import Outcome as SubmissionOutcome
from arena.storage.users import Actor

LOGGER = logging.getLogger(__name__)

IGNORED = {".git", "__pycache__", "node_modules", STAMP_NAME, ".venv", ".mypy_cache", ".ruff_cache"}
"""Never copied: build outputs are rebuilt from the copy, caches are noise."""
MAX_BOT_BYTES: Final = 50 * 1024 * 1024
"""The most a bot's files may hold, summed from their sizes before anything is read."""
MAX_BOT_FILES: Final = 10_000
"""The most files a bot may have (a directory of a million empty files is a denial of service)."""
MAX_PATH_BYTES: Final = 1024
"""The longest path of a file inside a bot (the stored copy sits deeper than the original)."""
CHECKSUM_PREFIX: Final = "v2:"
"""Marks checksums of :func:`checksum`; unprefixed ones are :func:`legacy_checksum`'s.

The digest follows the prefix in lowercase base32 without padding, 55 characters in all,
so it fits the 64 characters the database always gave checksums."""
_TREE_TAG: Final = b"952-arena bot tree v2\0"
_CHUNK: Final = 1024 * 1024


class SubmitError(ValueError):
    """The bot cannot be stored; the message is one line.

    *log* is what the attempt printed (build output, the smoke game's faults and the bot's
    stderr), kept in its :class:`~arena.storage.models.Submission` row.
    """

    outcome: SubmissionOutcome = "refused"
    """How its submission row ends: refused before anything was built."""

    def __init__(self, message: str, *, log: str = "") -> None:
        super().__init__(message)
        self.log = log


class BuildFailed(SubmitError):
    """The bot's build command failed."""

    outcome: SubmissionOutcome = "build_failed"


class SmokeFailed(SubmitError):
    """The bot faulted in its smoke game (or the arena could not play it)."""

    outcome: SubmissionOutcome = "smoke_failed"


class ChecksumError(ValueError):
    """A stored version's files are not those it was stored with; the message is one line."""


@dataclass(frozen=True)
class BotFile:
    """One file of a bot, as :func:`scan_bot` found it (nothing read yet)."""

    relative: PurePosixPath
    size: int
    executable: bool


def scan_bot(directory: Path) -> list[BotFile]:
    """The bot's files that make up a version, sorted by name, checked before any is read.

    Caches and build outputs named in :data:`IGNORED` are skipped without being entered.

    :raises SubmitError: for a symbolic link, a device, FIFO or socket, a name that is not
        UTF-8, more than :data:`MAX_BOT_FILES` files or more than :data:`MAX_BOT_BYTES`.
    """
    found: list[BotFile] = []
    total = 0
    pending = [(directory, PurePosixPath())]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise SubmitError(
                f"{_printable(str(prefix))}: cannot read the folder: {exc.strerror}"
            ) from None
        for entry in entries:
            relative = prefix / entry.name
            if entry.name in IGNORED or entry.name.endswith(".pyc"):
                continue
            shown = _printable(str(relative))
            try:
                encoded = str(relative).encode("utf-8")
            except UnicodeEncodeError:
                raise SubmitError(f"{shown}: file names must be UTF-8") from None
            if len(encoded) > MAX_PATH_BYTES:
                raise SubmitError(f"{shown[:60]}...: paths longer than {MAX_PATH_BYTES} bytes")
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                raise SubmitError(f"{shown}: symbolic links are not allowed in a bot")
            if stat.S_ISDIR(info.st_mode):
                pending.append((Path(entry.path), relative))
                continue
            if not stat.S_ISREG(info.st_mode):
                raise SubmitError(f"{shown}: only files and folders are allowed in a bot")
            total += info.st_size
            if total > MAX_BOT_BYTES:
                raise SubmitError(f"the bot is larger than {MAX_BOT_BYTES // 2**20} MiB")
            found.append(BotFile(relative, info.st_size, bool(info.st_mode & stat.S_IXUSR)))
            if len(found) > MAX_BOT_FILES:
                raise SubmitError(f"the bot has more than {MAX_BOT_FILES} files")
    return sorted(found, key=lambda f: str(f.relative).encode("utf-8"))


def bot_files(directory: Path) -> list[Path]:
    """The bot's files that make up a version, sorted, relative to *directory*."""
    return [Path(f.relative) for f in scan_bot(directory)]


def checksum(directory: Path) -> str:
    """The version's identity: ``v2:`` and a sha256 over an unambiguous listing of its files.

    Each file adds its name's length and name, whether it is executable, and the sha256 of
    its content (a tree, as git hashes one), so no two different sets of files share an
    encoding, unlike :func:`legacy_checksum`'s ``name\\0content\\0``.

    :raises SubmitError: as :func:`scan_bot` does, or if a file cannot be read.
    """
    digest = hashlib.sha256(_TREE_TAG)
    for file in scan_bot(directory):
        name = str(file.relative).encode("utf-8")
        digest.update(len(name).to_bytes(8, "big") + name)
        digest.update(b"x" if file.executable else b"-")
        digest.update(_file_digest(directory / file.relative, file.relative))
    encoded = base64.b32encode(digest.digest()).decode("ascii").rstrip("=").lower()
    return CHECKSUM_PREFIX + encoded


def legacy_checksum(directory: Path) -> str:
    """The checksum stored before :func:`checksum`: sha256 over ``name\\0content\\0`` per file.

    Kept only to verify versions stored with it: the encoding is ambiguous (a NUL inside a
    file's content can stand for a file boundary), so different file sets can share it.
    """
    digest = hashlib.sha256()
    # The order it always had: path components compared in turn (``a/b`` before ``a-c``).
    for file in sorted(scan_bot(directory), key=lambda f: f.relative.parts):
        digest.update(str(file.relative).encode("utf-8") + b"\0")
        with (directory / file.relative).open("rb") as source:
            while chunk := source.read(_CHUNK):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def verify_checksum(directory: Path, expected: str) -> None:
    """Check that the stored version at *directory* still has exactly its files.

    Run whenever a version is loaded to play: a version's files never change after it is
    stored, so a mismatch means tampering or a damaged disk, and the version must not play.

    :raises ChecksumError: with one line naming the directory, on any mismatch or if the
        files cannot be read.
    """
    try:
        actual = (
            checksum(directory)
            if expected.startswith(CHECKSUM_PREFIX)
            else (legacy_checksum(directory))
        )
    except SubmitError as exc:
        raise ChecksumError(f"{directory}: cannot verify the stored version: {exc}") from None
    if not hmac.compare_digest(actual, expected):
        raise ChecksumError(
            f"{directory}: the stored version's files changed (checksum {actual[:19]}, "
            f"stored {expected[:19]}); it will not be played"
        )


def _file_digest(path: Path, relative: PurePosixPath) -> bytes:
    try:
        with path.open("rb") as source:
            return hashlib.file_digest(source, "sha256").digest()
    except OSError as exc:
        raise SubmitError(f"{_printable(str(relative))}: cannot read: {exc.strerror}") from None


def _printable(name: str) -> str:
    """*name* safe to show on one line (undecodable bytes and control characters escaped)."""
    return repr(name)[1:-1] if not name.isprintable() else name


def _copy(source: Path, target: Path) -> None:
    """Copy the bot's files (checked by :func:`scan_bot` first) into the new *target*."""
    for file in scan_bot(source):
        destination = target / file.relative
        try:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / file.relative, destination, follow_symlinks=False)
        except OSError as exc:
            shown = _printable(str(file.relative))
            raise SubmitError(f"{shown}: cannot copy: {exc.strerror or exc}") from None


def _directory_name(digest: str) -> str:
    """The stored copy's folder: the checksum without its prefix (base32 or hex)."""
    return digest.removeprefix(CHECKSUM_PREFIX)


def submit_bot(  # noqa: PLR0913  (the keyword options of `arena bot submit`)
    engine: Engine,
    path: Path | str,
    data_dir: Path,
    *,
    build_timeout_s: float = 600.0,
    smoke_ruleset: str = "classic",
    build_network: bool | None = None,
    submitter: Actor | None = None,
    via: str = "cli",
    name_hint: str | None = None,
    open_ladders: bool = True,
    submission_id: int | None = None,
) -> tuple[Any, bool]:
    """Store a new version of the bot at *path* for *submitter* (default: the host's
    ``local`` organiser), submitted *via* ``cli``, ``dashboard`` or ``api``;
    ``(version, created)``.

    Every attempt is recorded as a :class:`~arena.storage.models.Submission` row, started
    before anything is built and finished on every path with its outcome, one line and
    its log (:mod:`arena.storage.submissions`); *name_hint* names it until the manifest
    is read (default: the folder's name; the dashboard passes the archive's). A caller
    that answers before the build (the HTTP API, with the row's id) starts the row itself
    (:func:`arena.storage.submissions.start_submission`) and passes its *submission_id*:
    this call then continues and finishes that row instead of starting one.
    A new version enters every open ladder unless *open_ladders* is false (the house bots
    of test matches: :mod:`arena.tournament.house`).

    A name another user owns, or a new name that looks like a stored bot's (``Greedy_Bot``
    beside ``greedy_bot``: :mod:`arena.storage.names`), is refused before anything is
    copied or built, and again when the version is stored
    (:func:`arena.storage.add_bot_version` checks in its transaction), so a refused
    submission stores nothing.

    ``created`` is False when the files equal the latest stored version's. *build_network*
    lets the build step reach the network (never the host's loopback); ``None`` follows
    ``$ARENA_BUILD_NETWORK`` (off by default).

    The stored checksum covers the copy as it will be played (after its build and smoke
    game); the submitted files' own checksum goes in the manifest as ``source_checksum`` so
    an unchanged resubmission is recognised without building again. The copy is staged in
    a fresh folder and renamed into place; an existing version's folder is never replaced
    or deleted, even when storing fails later (another process may already use it).

    :raises SubmitError: with one line saying what failed; nothing is stored then.
    """
    attempt = (
        _Attempt(engine, submission_id, [])
        if submission_id is not None
        else _Attempt.start(engine, submitter, via, name_hint or Path(path).name)
    )
    outcome: SubmissionOutcome = "refused"
    message = "the submission stopped unexpectedly (see the arena's log)"
    version_id: int | None = None
    try:
        version, created = _submit(
            engine,
            path,
            data_dir,
            attempt,
            build_timeout_s=build_timeout_s,
            smoke_ruleset=smoke_ruleset,
            build_network=build_network,
            submitter=submitter,
            via=via,
            open_ladders=open_ladders,
        )
        outcome = "stored" if created else "unchanged"
        message = f"{'stored' if created else 'unchanged: already stored as'} {version.label}"
        version_id = version.id
        return version, created
    except SubmitError as exc:
        outcome, message = exc.outcome, str(exc)
        attempt.log.append(exc.log)
        raise
    except Exception as exc:
        message = f"the arena failed: {type(exc).__name__}: {exc}"
        raise
    finally:
        attempt.finish(outcome, message, version_id)


@dataclass
class _Attempt:
    """One submission's row, and the log it collects while it runs."""

    engine: Engine
    submission_id: int
    log: list[str]

    @classmethod
    def start(cls, engine: Engine, submitter: Actor | None, via: str, name: str) -> _Attempt:
        """Start the attempt's ``running`` row.

        :raises SubmitError: if the submitter is unknown or the row cannot be stored
            (nothing was done yet).
        """
        try:
            user = submitter or storage.actor(engine)
            row = submissions.start_submission(engine, user_id=user.id, bot_name=name, via=via)
        except StorageError as exc:
            raise SubmitError(str(exc)) from None
        return cls(engine, row, [])

    def named(self, manifest: BotManifest) -> None:
        """The manifest is read: the row names the bot and version it gave."""
        submissions.name_submission(
            self.engine, self.submission_id, manifest.name, manifest.version
        )

    def finish(self, outcome: SubmissionOutcome, message: str, version_id: int | None) -> None:
        """End the row; a failure here is logged, never raised over the submission's own
        outcome or error."""
        try:
            submissions.finish_submission(
                self.engine,
                self.submission_id,
                outcome=outcome,
                message=message,
                log="\n".join(part for part in self.log if part),
                bot_version_id=version_id,
            )
        except Exception:
            LOGGER.exception("could not record the end of submission %s", self.submission_id)


def _submit(  # noqa: PLR0913  (submit_bot's keywords, passed on)
    engine: Engine,
    path: Path | str,
    data_dir: Path,
    attempt: _Attempt,
    *,
    build_timeout_s: float,
    smoke_ruleset: str,
    build_network: bool | None,
    submitter: Actor | None,
    via: str,
    open_ladders: bool = True,
) -> tuple[Any, bool]:
    """:func:`submit_bot`'s steps, adding to *attempt*'s log as they go."""
    try:
        manifest = load_manifest(path)
    except ManifestError as exc:
        raise SubmitError(str(exc)) from None
    try:
        attempt.named(manifest)
        check_may_submit(engine, submitter, manifest.name)
        # Exactly this name: the check above refused a look-alike of a stored one.
        latest = storage.latest_version(engine, manifest.name, exact=True)
    except StorageError as exc:
        raise SubmitError(str(exc)) from None
    source_digest = checksum(manifest.directory)
    if latest is not None and _same_files(latest, source_digest):
        return latest, False
    _refuse_beyond_quota(engine, submitter)
    bots_dir = data_dir / "bots" / manifest.name
    staging = _staging_folder(bots_dir)
    try:
        _copy(manifest.directory, staging)
        if checksum(staging) != source_digest:
            raise SubmitError("the bot's files changed while they were being copied")
        staged = load_manifest(staging)
        try:
            output = build(
                staged, timeout_s=build_timeout_s, hide=[data_dir], network=build_network
            )
        except BuildError as exc:
            raise BuildFailed(str(exc), log=_build_log(exc.output)) from None
        if output:
            attempt.log.append(_build_log(output))
        digest = checksum(staging)
        _smoke(staged, smoke_ruleset, attempt.log)
        try:
            verify_checksum(staging, digest)
        except ChecksumError:
            raise SubmitError("the bot changed its own files during the smoke game") from None
        final = _store(staging, bots_dir / _directory_name(digest), digest)
        stored = load_manifest(final)
        fields = {k: v for k, v in asdict(stored).items() if k != "directory"}
        fields["source_checksum"] = source_digest
        try:
            version, created = storage.add_bot_version(
                engine, _jsonable(fields), digest, str(final), submitter=submitter, via=via
            )
        except StorageError as exc:
            raise SubmitError(str(exc)) from None
        if created and open_ladders:
            _enter_open_ladders(engine, storage.row_id(version), attempt.log)
        return version, created
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        with contextlib.suppress(OSError):
            bots_dir.rmdir()  # only if empty: a refused first version leaves no folder behind


def _refuse_beyond_quota(engine: Engine, submitter: Actor | None) -> None:
    """Refuse, before anything is built, a participant's version beyond an open ladder's
    daily quota (organisers, and the host's ``local``, are never refused).

    :raises SubmitError: saying when they may try again.
    """
    if submitter is None:
        return
    try:
        refusal = storage.version_quota_refusal(engine, submitter.id, datetime.now(UTC))
    except StorageError as exc:
        raise SubmitError(str(exc)) from None
    if refusal is not None:
        raise SubmitError(refusal)


def _enter_open_ladders(engine: Engine, version_id: int, log: list[str]) -> None:
    """Enter the stored version into every open ladder (retiring its bot's previous
    version there), noting them in the submission's *log*. The version is stored
    already, so a failure here is logged, not raised: an organiser can still enter it
    with ``arena tournament add``."""
    try:
        ladders = storage.enter_open_ladders(engine, version_id)
    except StorageError as exc:
        LOGGER.warning("version %s entered no open ladder: %s", version_id, exc)
        log.append(f"== open ladders: not entered ({exc})")
        return
    if ladders:
        log.append(f"== entered the open ladder(s): {', '.join(ladders)}")


def _staging_folder(bots_dir: Path) -> Path:
    """A fresh staging folder in *bots_dir*, created as needed.

    A refused submission removes *bots_dir* again if it is empty, so a concurrent one of the
    same name may remove it between our ``mkdir`` and ``mkdtemp``: that is retried.
    """
    for _ in range(3):
        try:
            bots_dir.mkdir(parents=True, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=".staging-", dir=bots_dir))
        except FileNotFoundError:
            continue  # removed by a concurrent refused submission: create it again
        except OSError as exc:
            raise SubmitError(
                f"cannot store bots under {bots_dir}: {exc.strerror or exc}"
            ) from None
    raise SubmitError(
        f"cannot store bots under {bots_dir}: it was removed under us again and again"
    )


def _same_files(latest: Any, source_digest: str) -> bool:
    """True if the files checksummed *source_digest* are those *latest* was submitted with."""
    if latest.checksum == source_digest:
        return True
    try:
        recorded = json.loads(latest.manifest).get("source_checksum")
    except (ValueError, AttributeError):
        recorded = None
    if recorded is not None:
        return bool(recorded == source_digest)
    # A version stored before source_checksum: compare its stored copy, with the unambiguous
    # checksum (the legacy one collides, so it cannot say that two file sets are equal).
    try:
        return checksum(Path(latest.path)) == source_digest
    except SubmitError:
        return False


def _store(staging: Path, final: Path, digest: str) -> Path:
    """Rename *staging* to *final* in one step; a folder already there is kept as it is.

    ``rename`` never replaces a non-empty folder, so a version stored at *final* (by an
    earlier submission or another process, racing) stays untouched: it is reused if it
    verifies with *digest*, and the submission is refused otherwise.
    """
    try:
        staging.rename(final)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise SubmitError(f"cannot store the bot: {exc.strerror}") from None
        try:
            verify_checksum(final, digest)
        except ChecksumError:
            raise SubmitError(
                f"{final} already exists with other files; it is left as it is"
            ) from None
    return final


def _jsonable(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}


def _build_log(output: str) -> str:
    return f"== build output (its last 2,000 characters)\n{output}" if output else ""


def _smoke(manifest: BotManifest, ruleset: str, log: list[str]) -> None:
    """One game against two random players; any fault of the bot refuses the submission.

    The game's faults of the bot and its stderr are added to *log*, passed or not.
    """
    seats: list[SeatSpec] = [manifest, PolicySeat(RandomPolicy(1)), PolicySeat(RandomPolicy(2))]
    config = MatchConfig(PRESETS[ruleset], games=1, seed=1, time_control=TimeControl())
    try:
        result = asyncio.run(play_match(seats, config))
    except ArenaFault as exc:
        # Not the bot's fault (a runtime its run command names may be missing here), but
        # a bot the arena cannot play cannot be stored either.
        raise SmokeFailed(
            f"the arena could not play the smoke game, charged to no bot: {exc}"
        ) from None
    record = result.records[0]
    faults = [f for f in record["faults"] if f["seat"] == 0]
    log.append(_smoke_log(record, faults))
    if faults:
        fault = faults[0]
        tail = f"; stderr: {fault['stderr_tail']}" if fault.get("stderr_tail") else ""
        raise SmokeFailed(
            f"smoke game failed: {fault['kind']} at hand {fault['hand']} "
            f"({fault['decision']}): {fault['detail']}{tail}"
        )


def _smoke_log(record: Mapping[str, Any], faults: list[Mapping[str, Any]]) -> str:
    """The smoke game's part of the log: the bot's faults in full, then its output."""
    lines = [f"== smoke game: {len(faults)} fault(s) of the bot (seat 0)"]
    for fault in faults:
        lines.append(
            f"hand {fault.get('hand')}, {fault.get('decision')}: {fault.get('kind')}: "
            f"{fault.get('detail')}"
        )
        if fault.get("stderr_tail"):
            lines.append(f"stderr at the fault:\n{fault['stderr_tail']}")
    logs = record.get("bot_logs")
    own = logs[0] if isinstance(logs, list) and logs and isinstance(logs[0], Mapping) else {}
    for stream in ("stderr", "stdout"):
        if own.get(stream):
            lines.append(f"== the bot's {stream} in the smoke game\n{own[stream]}")
    if own.get("dropped_bytes"):
        lines.append(f"({own['dropped_bytes']} more bytes of output were not kept)")
    return "\n".join(lines)
