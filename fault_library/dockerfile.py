"""Reading Dockerfiles the way the builder does, for what matters at run time: which user the container runs
as and who owns the folders the image creates.

Only what the sample apps' (and their faults') Dockerfiles use is modelled: `USER`, `useradd`/`adduser`
with `--uid`, `mkdir`, `install -d`, `chown`, `chgrp`, `chmod` in `RUN`, and `COPY/ADD --chown`. A path the
Dockerfile never touches belongs to root, as it does in the base image.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass, field

# users every Debian base image has
WELL_KNOWN_UIDS = {"root": 0, "daemon": 1, "bin": 2, "sys": 3, "www-data": 33, "nobody": 65534}
_COMMAND_SEPARATOR = re.compile(r"&&|\|\||;")
# each tool's options that take a value, so operands are told apart from option values
_TAKES_VALUE = {
    "useradd": {"-u", "--uid", "-g", "--gid", "-G", "--groups", "-d", "--home-dir", "-s", "--shell", "-c", "--comment"},
    "adduser": {"--uid", "--gid", "--home", "--shell", "--gecos", "--ingroup"},
    "mkdir": {"-m", "--mode"},
    "install": {"-m", "--mode", "-o", "--owner", "-g", "--group"},
}


def instructions(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line, end line, keyword) of each instruction; continuation lines belong to their instruction."""
    found, i = [], 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        start = i
        while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
        found.append((start, i + 1, stripped.split()[0].upper()))
        i += 1
    return found


@dataclass
class ImageUsers:
    """The runtime user of an image and the owners of the folders its Dockerfile made."""

    user: str = "root"  # as the final USER wrote it
    uid: int | None = 0  # None: a user name the image does not define
    owners: dict[str, int] = field(default_factory=dict)  # path -> owner uid
    world_writable: set[str] = field(default_factory=set)
    accounts: dict[str, int] = field(default_factory=dict)  # name -> uid, as the Dockerfile creates them

    def owner(self, path: str) -> int:
        """The owner of `path`, or of the nearest folder above it the Dockerfile set; root otherwise."""
        return self.owners.get(self._nearest(path), 0)

    def writable_by(self, uid: int | None, path: str) -> bool:
        if uid == 0:
            return True
        nearest = self._nearest(path)
        return nearest in self.world_writable or (uid is not None and self.owners.get(nearest, 0) == uid)

    def _nearest(self, path: str) -> str:
        path = posixpath.normpath(path)
        while path not in self.owners and path not in self.world_writable and path != "/":
            path = posixpath.dirname(path)
        return path


def image_users(text: str) -> ImageUsers:
    image = ImageUsers()
    uids = image.accounts
    workdir, current = "/", 0
    lines = text.splitlines()
    for start, end, keyword in instructions(lines):
        body = " ".join(ln.rstrip().rstrip("\\").strip() for ln in lines[start:end])
        args = body.split(None, 1)[1] if " " in body else ""
        if keyword == "USER":
            image.user = args.strip()
            image.uid = _resolve(image.user.split(":")[0], uids)
            current = image.uid if image.uid is not None else -1
        elif keyword == "WORKDIR":
            workdir = posixpath.normpath(posixpath.join(workdir, args.strip()))
            image.owners.setdefault(workdir, 0)  # the builder creates it as root
        elif keyword in ("COPY", "ADD"):
            words = shlex.split(args)
            chown = next((w.split("=", 1)[1] for w in words if w.startswith("--chown=")), None)
            rest = [w for w in words if not w.startswith("--")]
            if chown and rest:
                owner = _resolve(chown.split(":")[0], uids)
                image.owners[posixpath.normpath(posixpath.join(workdir, rest[-1]))] = owner if owner is not None else -1
        elif keyword == "RUN":
            for command in _COMMAND_SEPARATOR.split(args):
                _run(command, image, uids, workdir, current)
    return image


def _run(command: str, image: ImageUsers, uids: dict[str, int], workdir: str, current: int) -> None:
    try:
        words = shlex.split(command)
    except ValueError:
        return
    if not words:
        return
    tool, rest = words[0], words[1:]
    operands = _operands(rest, _TAKES_VALUE.get(tool, set()))
    paths = [posixpath.normpath(posixpath.join(workdir, p)) for p in operands]
    if tool in ("useradd", "adduser") and operands:
        given = _option(rest, "-u", "--uid")
        if given is not None and given.isdigit():
            uids[operands[-1]] = int(given)
    elif tool == "mkdir" or (tool == "install" and "-d" in rest):
        owner = _option(rest, "-o", "--owner")
        made_by = _resolve(owner, uids) if owner else current
        for path in paths:
            image.owners[path] = made_by if made_by is not None else -1
        if _world_writable(_option(rest, "-m", "--mode") or ""):
            image.world_writable.update(paths)
    elif tool == "chown" and len(paths) >= 2:
        spec = operands[0]
        if spec.split(":")[0]:
            new_owner = _resolve(spec.split(":")[0], uids)
            for path in paths[1:]:
                image.owners[path] = new_owner if new_owner is not None else -1
    elif tool == "chmod" and len(operands) >= 2:
        targets = paths[1:]
        if _world_writable(operands[0]):
            image.world_writable.update(targets)
        else:
            image.world_writable.difference_update(targets)


def _operands(words: list[str], takes_value: set[str]) -> list[str]:
    found, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in takes_value:
            skip = True
        elif not word.startswith("-"):
            found.append(word)
    return found


def _option(words: list[str], short: str, long: str) -> str | None:
    for i, word in enumerate(words):
        if word in (short, long) and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(long + "="):
            return word.split("=", 1)[1]
    return None


def _resolve(user: str, uids: dict[str, int]) -> int | None:
    return int(user) if user.isdigit() else uids.get(user, WELL_KNOWN_UIDS.get(user))


def _world_writable(mode: str) -> bool:
    if mode.isdigit():
        return int(mode[-1]) & 2 == 2
    return bool(re.search(r"(^|,)[ugo]*[ao][ugo]*[+=][rxst]*w", mode))
