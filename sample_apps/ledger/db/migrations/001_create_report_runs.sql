-- One row per batch run; summary is the exact JSON text the signature covers.
CREATE TABLE report_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    policy_env TEXT NOT NULL,
    window_start TEXT NOT NULL,
    window_end TEXT NOT NULL,
    accepted INTEGER NOT NULL CHECK (accepted >= 0),
    rejected INTEGER NOT NULL CHECK (rejected >= 0),
    summary TEXT NOT NULL,
    signature TEXT NOT NULL
);
