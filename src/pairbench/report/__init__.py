"""Reporters read a finished (or interrupted) Run and render it; they never run anything."""
