"""The arena's HTTP API, version 1 (``arena api``): what a bot author's scripts and
``arena remote`` use with a personal token (docs/api.md)."""
