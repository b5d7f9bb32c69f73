from fault_library.faults.cross_service import rotated_secret  # noqa: F401
