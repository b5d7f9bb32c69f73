"""Reproducible images: a task's broken image, built twice from scratch, must hold the same files.

The digest covers each path, its type, mode, owner, link target and bytes of the image filesystem
(exported from a created container) — not image ids, layer ids or timestamps. Byte-compiled files carry
their source's mtime in the header (bytes 8-16), so that field is zeroed before hashing; everything else
counts. Paths Docker itself writes into every container (/etc/hosts, /etc/hostname, /etc/resolv.conf,
/.dockerenv) are skipped.
"""

from __future__ import annotations

import hashlib
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validation.caches import Caches
from validation.docker.engine import client
from validation.docker.images import build_base, build_image
from validation.docker.session import docker_session

_DOCKER_WRITTEN = {"etc/hosts", "etc/hostname", "etc/resolv.conf", ".dockerenv"}


class _Stream:
    """A file-like view of the SDK's export generator, for tarfile's streaming mode."""

    def __init__(self, chunks: Any) -> None:
        self.chunks, self.buf = iter(chunks), b""

    def read(self, n: int = -1) -> bytes:
        while n < 0 or len(self.buf) < n:
            try:
                self.buf += next(self.chunks)
            except StopIteration:
                break
        out, self.buf = (self.buf, b"") if n < 0 else (self.buf[:n], self.buf[n:])
        return out


def fs_digest(c: Any, image: str) -> tuple[str, int]:
    """(sha256 over the image filesystem's entries, number of entries)."""
    container = c.containers.create(image, ["true"], network_mode="none")
    try:
        entries: list[bytes] = []
        with tarfile.open(fileobj=_Stream(container.export()), mode="r|") as tar:  # type: ignore[call-overload]
            for info in tar:
                name = info.name.lstrip("./")
                if name in _DOCKER_WRITTEN:
                    continue
                data = b""
                if info.isfile():
                    f = tar.extractfile(info)
                    data = f.read() if f else b""
                    if name.endswith(".pyc") and len(data) >= 16:
                        data = data[:8] + b"\0" * 8 + data[16:]
                head = f"{name}\0{info.type!r}\0{info.mode:o}\0{info.uid}:{info.gid}\0{info.linkname}\0"
                entries.append(head.encode() + hashlib.sha256(data).digest())
        digest = hashlib.sha256(b"\n".join(sorted(entries))).hexdigest()
        return digest, len(entries)
    finally:
        container.remove(force=True)


@dataclass
class Reproducibility:
    service: str
    digests: tuple[str, str]
    entries: int

    @property
    def identical(self) -> bool:
        return self.digests[0] == self.digests[1]


def check_reproducible(workspace: Path, caches: Caches, app: str, dockerfiles: dict[str, str]) -> list[Reproducibility]:
    """Build each service's image twice with no cache and compare filesystem digests."""
    c = client()
    base = build_base(c, caches)
    found = []
    with docker_session(c, app) as session:
        for service, dockerfile in sorted(dockerfiles.items()):
            digests = []
            entries = 0
            for attempt in ("a", "b"):
                tag = session.tag(service, f"-repro{attempt}")
                built = build_image(c, workspace, dockerfile, base, tag, session.labels, nocache=True)
                if not built.ok:
                    digests.append("build failed: " + "; ".join(built.error_lines[-2:]))
                    continue
                digest, entries = fs_digest(c, tag)
                digests.append(digest)
            found.append(Reproducibility(service, (digests[0], digests[1]), entries))
    return found
