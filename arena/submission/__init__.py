"""Submitting a bot: validate, copy, build, smoke-test through the real referee, store.

A submitted version is an immutable copy of the bot's files under the data directory, so
a tournament always runs exactly what was submitted. Nothing is stored unless every step
passed: a broken manifest, a failing build or a faulty smoke game leaves no trace.

Sizes, file types and names are checked before any file is read (:func:`scan_bot`). The
stored checksum (:func:`checksum`) hashes an unambiguous listing of the files, and
:func:`verify_checksum` checks a stored copy against it whenever the version is loaded to
play; a stored copy's folder is never replaced or deleted. Those file checks, the checksum
and the copy are :mod:`arena.submission.files`, its names re-exported here.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from arena import storage
from arena.game import PRESETS
from arena.game.policies import RandomPolicy
from arena.referee.errors import ArenaFault
from arena.referee.manifest import BotManifest, ManifestError, load_manifest
from arena.referee.match import MatchConfig, PolicySeat, SeatSpec, play_match
from arena.referee.timecontrol import TimeControl
from arena.sandbox.build.bot import BuildError, build
from arena.storage import submissions
from arena.storage.bots import check_may_submit
from arena.storage.database import StorageError
from arena.storage.submissions import Outcome as SubmissionOutcome
from arena.storage.users import Actor
from arena.submission.files import (
    CHECKSUM_PREFIX,
    IGNORED,
    MAX_BOT_BYTES,
    MAX_BOT_FILES,
    MAX_PATH_BYTES,
    BotFile,
    ChecksumError,
    SubmitError,
    _copy,
    _directory_name,
    bot_files,
    checksum,
    legacy_checksum,
    scan_bot,
    verify_checksum,
)

LOGGER = logging.getLogger(__name__)


class BuildFailed(SubmitError):
    """The bot's build command failed; *tail* holds its last meaningful lines (for the
    command line to show above the one-line message)."""

    outcome: SubmissionOutcome = "build_failed"

    def __init__(self, message: str, *, log: str = "", tail: Sequence[str] = ()) -> None:
        super().__init__(message, log=log)
        self.tail = list(tail)


class SmokeFailed(SubmitError):
    """The bot faulted in its smoke game (or the arena could not play it)."""

    outcome: SubmissionOutcome = "smoke_failed"


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
            raise BuildFailed(str(exc), log=_build_log(exc.output), tail=exc.tail) from None
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


__all__ = [
    "CHECKSUM_PREFIX",
    "IGNORED",
    "MAX_BOT_BYTES",
    "MAX_BOT_FILES",
    "MAX_PATH_BYTES",
    "BotFile",
    "BuildFailed",
    "ChecksumError",
    "SmokeFailed",
    "SubmitError",
    "bot_files",
    "checksum",
    "legacy_checksum",
    "scan_bot",
    "submit_bot",
    "verify_checksum",
]
