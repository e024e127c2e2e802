"""A build without the network: package managers told so, and their failure explained.

Without the network a build that downloads can only fail, and the package managers' own
retries make it fail slowly (``npm ci`` waits about 76 s over its fetch retries before it
gives up). So a build without the network runs with :data:`OFFLINE_ENV`: npm and yarn work
from their (empty) cache, pip does not retry, cargo and go do not try; a build that needs
nothing from a registry is unaffected, one that does fails within a second or two.

When such a build fails, :func:`needs_registry` recognises the package managers' words
for "the registry was out of reach" in its output, so the arena can say what to do
(:data:`REGISTRY_HINT`), and :func:`meaningful_tail` keeps the lines worth showing: not
blank lines, nor a pointer to a log file inside the build's throwaway ``/tmp``.
"""

from __future__ import annotations

import re

from arena.sandbox.build.settings import NETWORK_ENV

REGISTRY_HINT = (
    f"this build needs a package registry: rerun with --build-network (or {NETWORK_ENV}=on)"
)
"""What to do when a build without the network failed reaching a package registry."""

OFFLINE_ENV: dict[str, str] = {
    # npm: only the cache (empty in the sandbox), so `npm ci` fails at once with ENOTCACHED.
    "npm_config_offline": "true",
    "npm_config_fetch_retries": "0",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_update_notifier": "false",
    # yarn (berry): no network.
    "YARN_ENABLE_NETWORK": "0",
    "YARN_ENABLE_OFFLINE_MODE": "1",
    # pip: no retries, a short timeout (an index is still named, so the error says so).
    "PIP_RETRIES": "0",
    "PIP_TIMEOUT": "5",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    # cargo and go: never try the network.
    "CARGO_NET_OFFLINE": "true",
    "GOPROXY": "off",
}
"""Environment of a build without the network (added to its small environment)."""

_REGISTRY_SIGNS = re.compile(
    "|".join(
        (
            r"\bENOTCACHED\b",  # npm offline: not in the cache
            r"\bENOTFOUND\b",  # npm/node: name lookup failed
            r"\bEAI_AGAIN\b",
            r"\bENETUNREACH\b",
            r"\bECONNREFUSED\b.*registry",
            r"Temporary failure in name resolution",
            r"Name or service not known",
            r"Failed to establish a new connection",
            r"Network is unreachable",
            r"Could not resolve host",
            r"\(from versions: none\)",  # pip without an index in reach
            r"module lookup disabled by GOPROXY=off",
            r"--offline was specified|attempting to make an HTTP request, but --offline",
            r"YN0081|Network access has been disabled",  # yarn berry offline
        )
    )
)

_NOISE = re.compile(
    r"complete log of this run can be found in"  # npm: a file in the throwaway /tmp
    r"|^\s*(npm (error|ERR!)|npm warn|WARNING:)?\s*$"  # a prefix and nothing else
    r"|^npm (error|ERR!) (A complete log|Log files were not written)",
    re.IGNORECASE,
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def needs_registry(output: str) -> bool:
    """Whether a build's *output* shows it tried, and failed, to reach a package
    registry (or any host): the signs npm, pip, cargo, go and yarn print."""
    return _REGISTRY_SIGNS.search(_ANSI.sub("", output)) is not None


def meaningful_tail(output: str, lines: int = 8) -> list[str]:
    """The last *lines* lines of a build's *output* worth showing: without terminal
    colour codes, blank lines, bare prefixes (``npm error``), or pointers to log files
    that died with the build's private ``/tmp``; each at most 300 characters."""
    kept = [
        line.rstrip()[:300]
        for line in _ANSI.sub("", output).splitlines()
        if line.strip() and not _NOISE.search(line)
    ]
    return kept[-lines:] if lines > 0 else []


__all__ = ["OFFLINE_ENV", "REGISTRY_HINT", "meaningful_tail", "needs_registry"]
