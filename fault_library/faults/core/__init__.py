from fault_library.faults.core import dependency_clash, merge_conflict  # noqa: F401
