from fault_library.faults.cross_service import dependency_drift, port_conflict, rotated_secret  # noqa: F401
