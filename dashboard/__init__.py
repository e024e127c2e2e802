"""The 952 Arena dashboard (Streamlit): ``arena dashboard`` serves ``dashboard/server.py``
(the pages of ``dashboard/app.py`` and the login cookie's routes).

The pages read the arena database through :mod:`arena.storage` (the read models of
``standings`` and ``statistics``, shared with the CLI); they never play games. Starting a tournament launches the same runner as ``arena tournament run`` in a
separate process.
"""
