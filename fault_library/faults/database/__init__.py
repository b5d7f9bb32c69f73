from fault_library.faults.database import migration_syntax  # noqa: F401
