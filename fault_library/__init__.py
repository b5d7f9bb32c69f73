"""The fault library: the contract, the registry, the sample-app catalog and the built-in faults."""

from fault_library.apps import all_apps, app_dir, get_app
from fault_library.fault import Category, CheckResult, Fault
from fault_library.registry import all_faults, applicable_fault, get_fault, register
from fault_library.workspace import Workspace, load_manifest

__all__ = [
    "Category",
    "CheckResult",
    "Fault",
    "Workspace",
    "all_apps",
    "all_faults",
    "app_dir",
    "applicable_fault",
    "get_app",
    "get_fault",
    "load_manifest",
    "register",
]
