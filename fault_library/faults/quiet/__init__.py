"""Faults of this category (none yet)."""
