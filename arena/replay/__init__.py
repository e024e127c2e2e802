"""Replays: a stored game as steps to walk through, and the table at each step, for the
dashboard's Replays page and ``arena replay``. Pure like :mod:`arena.game`, on whose public
API it is built: :mod:`arena.replay.steps` (the steps), :mod:`arena.replay.views` (the table
as one seat or everybody sees it), :mod:`arena.replay.text` (a replay as plain text).
"""
