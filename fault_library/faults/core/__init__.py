from fault_library.faults.core import dependency_clash, env_var_mapping, hardcoded_secret, merge_conflict  # noqa: F401
