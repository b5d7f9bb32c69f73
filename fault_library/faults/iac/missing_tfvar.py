"""A required Terraform variable lost its value in the tfvars file."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel, Field

from fault_library.fault import Category, Fault, Repair
from fault_library.registry import register
from fault_library.terraform import variables
from fault_library.text import insert_after, remove_line
from fault_library.workspace import Workspace
from schemas.mutation import Edit


class Params(BaseModel):
    variable: str
    value: str = Field(description="the HCL expression the tfvars file assigned")


def _assignment(text: str, name: str) -> int:
    pattern = re.compile(rf"^\s*{re.escape(name)}\s*=\s*\S.*$")
    return next(i for i, line in enumerate(text.splitlines()) if pattern.match(line))


@register
class MissingTfvar(Fault):
    id = "iac.missing_tfvar"
    category = Category.IAC
    stage = "iac"
    summary = "A Terraform variable without a default has no value in terraform.tfvars any more."
    signature = r"No value for required variable"
    Params = Params
    roles = ("tf_variables", "tf_tfvars")

    def sample_params(self, app: Workspace, rng: random.Random) -> Params:
        tfvars = app.read(app.role("tf_tfvars"))
        required = [n for n, attrs in variables(app.read(app.role("tf_variables"))).items() if "default" not in attrs]
        single_line = [n for n in sorted(required) if re.search(rf"^\s*{re.escape(n)}\s*=\s*[^\[{{\s]", tfvars, re.M)]
        variable = rng.choice(single_line)
        value = tfvars.splitlines()[_assignment(tfvars, variable)].split("=", 1)[1].strip()
        return Params(variable=variable, value=value)

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        path = ws.role("tf_tfvars")
        text = ws.read(path)
        return [remove_line(path, text, _assignment(text, params.variable))]

    def alternative_fixes(self, ws: Workspace, params: Params) -> list[Repair]:
        """Give the variable a default in variables.tf instead of restoring the tfvars line."""
        path = ws.role("tf_variables")
        text = ws.read(path)
        header = re.compile(rf'^variable\s+"{re.escape(params.variable)}"\s*{{')
        index = next(i for i, line in enumerate(text.splitlines()) if header.match(line))
        return [
            Repair(
                "declare_default",
                f"default {params.variable} in variables.tf",
                [insert_after(path, text, index, f"  default = {params.value}\n")],
            )
        ]
