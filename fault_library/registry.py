"""The one place that enumerates faults. The contract is checked when a fault registers."""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from importlib.metadata import entry_points
from types import MappingProxyType

from pydantic import BaseModel

from fault_library.fault import Category, Fault
from schemas.errors import FaultNotApplicableError, RegistryError, UnknownFaultError
from schemas.manifest import STAGES, AppManifest

ENTRY_POINT_GROUP = "faultsmith.faults"
_ID = re.compile(r"^(?P<category>[a-z_]+)\.[a-z][a-z0-9_]*$")
_REQUIRED_ATTRS = ("id", "category", "stage", "summary", "signature", "Params", "roles")
_REGISTRY: dict[str, Fault] = {}


def register(cls: type[Fault]) -> type[Fault]:
    """Class decorator: check the fault against the contract and add it to the registry."""
    _check_contract(cls)
    if cls.id in _REGISTRY:
        raise RegistryError(f"duplicate fault id {cls.id!r} ({cls.__module__} and {_REGISTRY[cls.id]!r})")
    _REGISTRY[cls.id] = cls()
    return cls


def _check_contract(cls: type[Fault]) -> None:
    where = f"{cls.__module__}.{cls.__qualname__}"
    missing = [a for a in _REQUIRED_ATTRS if not hasattr(cls, a)]
    if missing:
        raise RegistryError(f"{where} lacks {missing}")
    if inspect.isabstract(cls):
        raise RegistryError(f"{where} does not implement {sorted(cls.__abstractmethods__)}")
    match = _ID.match(cls.id)
    if not match:
        raise RegistryError(f"{where}: id {cls.id!r} is not 'category.name'")
    if match["category"] != Category(cls.category).value:
        raise RegistryError(f"{where}: id {cls.id!r} does not start with its category {cls.category.value!r}")
    if cls.stage not in STAGES:
        raise RegistryError(f"{where}: stage {cls.stage!r} is not one of {STAGES}")
    if not (isinstance(cls.Params, type) and issubclass(cls.Params, BaseModel)):
        raise RegistryError(f"{where}: Params must be a pydantic model")
    if not cls.roles or not cls.summary.strip():
        raise RegistryError(f"{where}: roles and summary must not be empty")
    try:
        re.compile(cls.signature)
    except re.error as err:
        raise RegistryError(f"{where}: signature is not a valid regex: {err}") from err


_loaded = False
_sorted: MappingProxyType[str, Fault] | None = None


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    import fault_library.faults  # noqa: F401  (registers the built-in faults)

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ep.load()


def all_faults() -> Mapping[str, Fault]:
    """Every registered fault by id, sorted. A read-only view: composers call this in their hot loop."""
    global _sorted
    _load()
    if _sorted is None or len(_sorted) != len(_REGISTRY):
        _sorted = MappingProxyType(dict(sorted(_REGISTRY.items())))
    return _sorted


def get_fault(fault_id: str) -> Fault:
    faults = all_faults()
    if fault_id not in faults:
        raise UnknownFaultError(fault_id, faults)
    return faults[fault_id]


def applicable_fault(fault_id: str, app: AppManifest, apps: dict[str, AppManifest]) -> Fault:
    fault = get_fault(fault_id)
    if not fault.applicable(app):
        raise FaultNotApplicableError(fault_id, app.name, [a for a, m in apps.items() if fault.applicable(m)])
    return fault
