"""HMAC-SHA256 request signatures for internal, service-to-service calls."""

from __future__ import annotations

import hashlib
import hmac

HEADER = "X-Signature"
_PREFIX = "sha256="


def sign(secret: str, body: bytes) -> str:
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return _PREFIX + digest


def verify(secret: str, body: bytes, signature: str | None) -> bool:
    if not signature:
        return False
    return hmac.compare_digest(sign(secret, body).encode(), signature.encode("utf-8", "replace"))
