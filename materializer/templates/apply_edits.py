"""Apply a list of text edits (replace / create / delete) to a folder. Standard library only."""

import json
import sys
from pathlib import Path


def main(root: str, edits_file: str) -> None:
    base = Path(root).resolve()
    for edit in json.loads(Path(edits_file).read_text("utf-8")):
        path = (base / edit["path"]).resolve()
        if base not in path.parents:
            sys.exit(f"refusing to edit {edit['path']}: outside {base}")
        if edit["kind"] == "create":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(edit["content"], "utf-8")
        elif edit["kind"] == "delete":
            path.unlink()
        else:
            text = path.read_text("utf-8")
            if text.count(edit["before"]) != 1:
                sys.exit(f"cannot apply the repair to {edit['path']}: the text to replace is not there exactly once")
            path.write_text(text.replace(edit["before"], edit["after"]), "utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
