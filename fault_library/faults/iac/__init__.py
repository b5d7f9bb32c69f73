from fault_library.faults.iac import invalid_provider_source, missing_tfvar  # noqa: F401
