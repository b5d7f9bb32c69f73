"""HMAC-SHA256 signatures over the exact stored summary text."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sign(secret: str, text: str) -> str:
    return hmac.new(secret.encode("utf-8"), text.encode("utf-8"), hashlib.sha256).hexdigest()


def verify(secret: str, text: str, signature: str) -> bool:
    return hmac.compare_digest(sign(secret, text), signature)
