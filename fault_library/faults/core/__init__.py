from fault_library.faults.core import (  # noqa: F401
    dependency_clash,
    dockerfile_layer_order,
    env_var_mapping,
    flaky_timing_test,
    hardcoded_secret,
    merge_conflict,
    missing_network_permission,
    wrong_container_user,
)
