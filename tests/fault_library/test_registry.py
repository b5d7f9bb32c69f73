"""The registry enforces the fault contract at registration time."""

from __future__ import annotations

import pkgutil
import random

import pytest
from pydantic import BaseModel

import fault_library.faults as faults_pkg
from fault_library.fault import Category, Fault
from fault_library.registry import all_faults, register
from schemas.errors import RegistryError


class _P(BaseModel):
    x: int = 0


def _fault(**attrs: object) -> type[Fault]:
    base = {
        "id": "core.sample_case",
        "category": Category.CORE,
        "stage": "build",
        "summary": "s",
        "signature": "x",
        "Params": _P,
        "roles": ("compose",),
        "sample_params": lambda self, app, rng: _P(),
        "edits": lambda self, ws, p: [],
    }
    return type("SampleFault", (Fault,), base | attrs)


def test_every_fault_module_registers_a_fault() -> None:
    registered = {type(f).__module__ for f in all_faults().values()}
    for category in pkgutil.iter_modules(faults_pkg.__path__, faults_pkg.__name__ + "."):
        package = __import__(category.name, fromlist=["_"])
        for module in pkgutil.iter_modules(package.__path__, category.name + "."):
            if module.name.rsplit(".", 1)[-1].startswith("_"):
                continue  # a private helper shared by the category's faults
            assert module.name in registered, f"{module.name} registers no fault"


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"id": "NoCategory"}, "is not 'category.name'"),
        ({"id": "database.sample_case"}, "does not start with its category"),
        ({"stage": "compile"}, "stage 'compile'"),
        ({"Params": dict}, "Params must be a pydantic model"),
        ({"signature": "(unclosed"}, "not a valid regex"),
        ({"roles": ()}, "must not be empty"),
        ({"edits": None}, "lacks|does not implement|not callable"),
    ],
)
def test_contract_violations_fail_at_registration(attrs: dict[str, object], message: str) -> None:
    cls = _fault(**attrs)
    if attrs.get("edits", 1) is None:
        del cls.edits  # type: ignore[attr-defined]
        cls.__abstractmethods__ = frozenset({"edits"})
    with pytest.raises(RegistryError, match=message):
        register(cls)


def test_duplicate_id_fails() -> None:
    existing = next(iter(all_faults()))
    with pytest.raises(RegistryError, match="duplicate fault id"):
        register(_fault(id=existing, category=Category(existing.split(".")[0])))


def test_params_are_seeded() -> None:
    from fault_library.apps import all_apps, app_dir
    from fault_library.workspace import Workspace

    for fault in all_faults().values():
        for name, manifest in all_apps().items():
            if fault.applicable(manifest):
                ws = Workspace(app_dir(name), manifest)
                assert fault.sample_params(ws, random.Random(5)) == fault.sample_params(ws, random.Random(5))
