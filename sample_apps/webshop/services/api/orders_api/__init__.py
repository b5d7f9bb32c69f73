"""Orders HTTP API."""

from orders_api.app import create_app

__all__ = ["create_app"]
