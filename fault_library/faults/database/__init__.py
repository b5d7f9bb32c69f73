from fault_library.faults.database import (  # noqa: F401
    init_race,
    migration_syntax,
    not_null_without_default,
    schema_drift,
    wrong_database_url,
)
