"""Tournaments: formats that schedule games, executors that play them, and the runner that
stores every game exactly once and keeps the ratings in schedule order."""
