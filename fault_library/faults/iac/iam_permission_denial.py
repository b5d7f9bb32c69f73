"""The services' IAM policy lost an action they call at run time (dropped, misspelt or swapped for a sibling)."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel

from fault_library.fault import Category, Fault, Repair
from fault_library.registry import register
from fault_library.text import insert_after, remove_line, replace_line
from fault_library.workspace import Workspace
from schemas.manifest import MANIFEST_NAME
from schemas.mutation import Edit

# an action -> look-alike actions that do not grant it
SIBLINGS = {
    "s3:PutObject": ("s3:PutObjectAcl", "s3:PutObjectTagging", "s3:PutBucketPolicy"),
    "s3:GetObject": ("s3:GetObjectVersion", "s3:GetObjectAcl", "s3:ListBucket"),
    "sqs:SendMessage": ("sqs:ReceiveMessage", "sqs:GetQueueUrl", "sqs:GetQueueAttributes"),
    "logs:PutLogEvents": ("logs:CreateLogStream", "logs:DescribeLogStreams", "logs:CreateLogGroup"),
    "bigquery.tables.updateData": ("bigquery.tables.update", "bigquery.tables.getData", "bigquery.tables.get"),
    "storage.objects.get": ("storage.objects.list", "storage.buckets.get"),
    "storage.objects.create": ("storage.objects.update", "storage.objects.delete", "storage.buckets.create"),
    "logging.logEntries.create": ("logging.logEntries.list", "logging.logs.list"),
}


class Params(BaseModel):
    action: str
    kind: str  # drop | sibling | typo
    replacement: str  # the sibling or the misspelling ("" for drop)


def _typos(action: str) -> list[str]:
    sep = ":" if ":" in action else "."
    head, _, name = action.rpartition(sep)
    options = {f"{head}{sep}{name}s"}
    for i in range(len(name) - 1):
        if name[i] != name[i + 1]:
            options.add(f"{head}{sep}{name[:i]}{name[i + 1]}{name[i]}{name[i + 2 :]}")
    for i in range(1, len(name)):
        options.add(f"{head}{sep}{name[:i]}{name[i + 1 :]}")
    options.discard(action)
    return sorted(o for o in options if o.lower() != action.lower())


def _line_of(text: str, action: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if f'"{action}"' in line)


def _gcp(text: str) -> bool:
    return "permissions" in text and "Statement" not in text


@register
class IamPermissionDenial(Fault):
    id = "iac.iam_permission_denial"
    category = Category.IAC
    stage = "iac"
    summary = (
        "The Terraform IAM policy no longer grants one action the services call at run time: it was dropped, "
        "misspelt or replaced by a look-alike action."
    )
    signature = r"AccessDenied: the deploy role is not granted"
    Params = Params
    roles = ("tf_iam",)

    def sample_params(self, app: Workspace, rng: random.Random) -> Params:
        text = app.read(app.role("tf_iam"))
        options = []
        for action in app.manifest.terraform.required_actions:
            if text.count(f'"{action}"') != 1:
                continue
            line = text.splitlines()[_line_of(text, action)]
            if line.count('"') > 2 or line.strip() == f'"{action}",':
                options.append((action, "drop", ""))
            options += [(action, "sibling", s) for s in SIBLINGS.get(action, ()) if f'"{s}"' not in text]
            options += [(action, "typo", t) for t in rng.sample(_typos(action), min(3, len(_typos(action))))]
        action, kind, replacement = rng.choice(options)
        return Params(action=action, kind=kind, replacement=replacement)

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        path = ws.role("tf_iam")
        text = ws.read(path)
        index = _line_of(text, params.action)
        line = text.splitlines()[index]
        quoted = f'"{params.action}"'
        if params.kind != "drop":
            return [replace_line(path, text, index, line.replace(quoted, f'"{params.replacement}"'))]
        if line.strip() == f"{quoted},":
            return [remove_line(path, text, index)]
        new = re.sub(rf"{re.escape(quoted)},\s*|,\s*{re.escape(quoted)}", "", line, count=1)
        return [replace_line(path, text, index, new)]

    def alternative_fixes(self, ws: Workspace, params: Params) -> list[Repair]:
        path = ws.role("tf_iam")
        text = ws.read(path)
        lines = text.splitlines()
        if _gcp(text):
            # a custom role's permissions list: add the permission as its own entry at the end
            start = next(i for i, ln in enumerate(lines) if re.match(r"^\s*permissions\s*=\s*\[\s*$", ln))
            end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "]")
            indent = re.match(r"^\s*", lines[end - 1])[0]  # type: ignore[index]
            edit = insert_after(path, text, end - 1, f'{indent}"{params.action}",\n')
            return [Repair("append_permission", f"grant {params.action} as a new entry of the role", [edit])]
        close = max(i for i, ln in enumerate(lines) if re.match(r"^\s*\]\s*$", ln))
        indent = re.match(r"^\s*", lines[close])[0] + "  "  # type: ignore[index]
        prefix, _, name = params.action.partition(":")
        verb = re.match(r"^[A-Z][a-z]*", name)
        wildcard = f"{prefix}:{verb[0] if verb else ''}*"
        repairs = []
        for label, action, sid in (
            ("separate_statement", params.action, "RuntimeAccess"),
            ("wildcard_statement", wildcard, "RuntimeWildcard"),
        ):
            block = (
                f"{indent}{{\n"
                f'{indent}  Sid      = "{sid}"\n'
                f'{indent}  Effect   = "Allow"\n'
                f'{indent}  Action   = ["{action}"]\n'
                f'{indent}  Resource = "*"\n'
                f"{indent}}},\n"
            )
            repairs.append(
                Repair(label, f"grant {action} in a statement of its own", [insert_after(path, text, close - 1, block)])
            )
        return repairs

    def workarounds(self, ws: Workspace, params: Params) -> list[Repair]:
        text = ws.read(MANIFEST_NAME)
        index = _line_of(text, params.action)
        line = text.splitlines()[index]
        quoted = f'"{params.action}"'
        if line.strip() == f"{quoted},":
            edit = remove_line(MANIFEST_NAME, text, index)
        else:
            new = re.sub(rf"{re.escape(quoted)},\s*|,\s*{re.escape(quoted)}", "", line, count=1)
            edit = replace_line(MANIFEST_NAME, text, index, new)
        return [Repair("drop_required_action", "stop declaring that the services call the action", [edit])]
