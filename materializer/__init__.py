"""Scenario -> task bundle (Harbor layout): atomic, deterministic."""

from materializer.bundle import materialize

__all__ = ["materialize"]
