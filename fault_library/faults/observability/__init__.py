from fault_library.faults.observability import (  # noqa: F401
    broken_json_formatter,
    missing_volume_mount,
    pii_leak,
    silenced_log_level,
    unwritable_log_path,
)
