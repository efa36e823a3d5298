"""Persistence: the versioned run file and the history store."""
