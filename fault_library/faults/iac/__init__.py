from fault_library.faults.iac import (  # noqa: F401
    iam_permission_denial,
    invalid_provider_source,
    missing_tfvar,
    undeclared_tfvar,
)
