"""Workspaces keep every path inside themselves and apply edits all-or-nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from fault_library.workspace import Workspace
from schemas.errors import MutationError, NotAnAppError, UnsafePathError
from schemas.mutation import Create, Replace, reverse


@pytest.fixture
def ws(clean_copy) -> Workspace:
    return Workspace(clean_copy("webshop"))


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "a/../../b", "", "x\x00y"])
def test_paths_cannot_escape(ws: Workspace, path: str) -> None:
    with pytest.raises(UnsafePathError):
        ws.path(path)


def test_symlink_escape_is_refused(ws: Workspace, tmp_path: Path) -> None:
    (ws.root / "link").symlink_to(tmp_path)
    with pytest.raises(UnsafePathError):
        ws.path("link/anything")


def test_apply_is_all_or_nothing(ws: Workspace) -> None:
    before = ws.read(".env")
    edits = [
        Replace(path=".env", before=before[:10], after="CHANGED"),
        Replace(path=".env", before="absent", after="x"),
    ]
    with pytest.raises(MutationError, match="exactly once"):
        ws.apply(edits)
    assert ws.read(".env") == before


def test_reversed_edits_restore_bytes(ws: Workspace) -> None:
    original = ws.read(".env")
    edits = [
        Replace(path=".env", before=original[:12], after="XYZ"),
        Create(path="notes/new.txt", content="hi\n"),
    ]
    diff = ws.apply(edits)
    assert "+XYZ" in diff and "b/notes/new.txt" in diff
    ws.apply([reverse(e) for e in reversed(edits)])
    assert ws.read(".env") == original and not ws.exists("notes/new.txt")


def test_a_folder_without_manifest_is_not_an_app(tmp_path: Path) -> None:
    with pytest.raises(NotAnAppError, match="faultsmith.toml"):
        Workspace(tmp_path)
