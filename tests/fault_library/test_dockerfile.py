"""Reading a Dockerfile for its runtime user and folder owners, as the builder would."""

from __future__ import annotations

import pytest

from fault_library.dockerfile import image_users

BASE = "FROM python:3.11-slim\nRUN useradd --no-log-init --create-home --uid 10001 app \\\n    && mkdir /data \\\n"


@pytest.mark.parametrize(
    ("tail", "user", "uid", "writable"),
    [
        ("    && chown app:app /data\nUSER 10001\n", "10001", 10001, True),
        ("    && chown app:app /data\nUSER app\n", "app", 10001, True),
        ("    && chown app:app /data\nUSER 10002\n", "10002", 10002, False),
        ("    && chgrp app /data\nUSER 10001\n", "10001", 10001, False),
        ("    && true\nUSER 10001\n", "10001", 10001, False),  # mkdir as root, never handed over
        ("    && chmod 777 /data\nUSER 10001\n", "10001", 10001, True),  # world-writable
        ("    && chmod 777 /data && chmod 755 /data\nUSER 10001\n", "10001", 10001, False),
        ("    && true\nRUN chown 10001 /data\nUSER 10001:10001\n", "10001:10001", 10001, True),
        ("    && true\nUSER nobody\n", "nobody", 65534, False),
        ("    && true\nUSER ghost\n", "ghost", None, False),
        ("    && chown app /data\n", "root", 0, True),  # no USER: root writes anywhere
    ],
)
def test_who_can_write_the_data_folder(tail: str, user: str, uid: int | None, writable: bool) -> None:
    image = image_users(BASE + tail)
    assert (image.user, image.uid) == (user, uid)
    assert image.writable_by(image.uid, "/data") is writable
    assert image.writable_by(image.uid, "/data/shop.db") is writable  # files inherit the folder's owner


def test_folders_made_as_the_current_user_or_for_an_owner() -> None:
    image = image_users(
        "FROM x\nRUN useradd -m -u 7 bob\nUSER 7\nRUN mkdir -p /home/bob/cache\nUSER root\n"
        "RUN install -d -o bob -m 0750 /srv/app\nWORKDIR /opt\nCOPY --chown=bob:bob app/ lib/\n"
    )
    assert image.owner("/home/bob/cache") == 7
    assert image.owner("/srv/app") == 7
    assert image.owner("/opt") == 0
    assert image.owner("/opt/lib") == 7
    assert image.owner("/var/lib") == 0  # never touched: the base image's root
