from fault_library.faults.observability import broken_json_formatter  # noqa: F401
