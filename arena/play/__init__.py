"""Playing against the bots in the browser (docs/play.md): a person's seat at a table of two
bots, refereed like any other game.

``view`` (what the page shows, from the seat's observation alone), ``choice`` (the
page's check of a choice before it is written), ``desk`` (the seat's
meeting point with the page: the ``play_game`` row), ``runner`` (the process that plays one
game: ``python -m arena.play.runner ID``), ``starter`` (the dashboard starts it, detached).
"""
