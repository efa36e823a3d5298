"""Runners measure one replicate of one benchmark under one variant; they never do statistics."""
