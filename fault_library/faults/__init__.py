"""Built-in faults, one package per category; importing a package registers its faults."""

from fault_library.faults import core, cross_service, database, iac, observability, quiet  # noqa: F401
