"""Independent rules oracle for arena952.game/1 records (see rules_oracle.py)."""
