-- The latest run nobody typed, per trigger: the installed service's `run --unattended`
-- ('service') and a cycle of `run --every` ('every'). `doctor` reads it to tell when the
-- service last ran and how it went.
CREATE TABLE unattended_runs (
    trigger         TEXT PRIMARY KEY CHECK (trigger IN ('service', 'every')),
    started_at      TEXT NOT NULL,
    finished_at     TEXT NOT NULL,
    -- 'ok' (no account failed), 'failed' (one or more did), 'interrupted' (stopped by a signal).
    result          TEXT NOT NULL CHECK (result IN ('ok', 'failed', 'interrupted')),
    accounts        INTEGER NOT NULL,
    -- The names of the accounts that failed, one a line.
    failed_accounts TEXT NOT NULL DEFAULT '',
    -- Accounts left waiting out a backoff.
    waiting         INTEGER NOT NULL DEFAULT 0,
    -- The period of `run --every`; NULL for the service (its timer holds it).
    period_seconds  INTEGER,
    pid             INTEGER NOT NULL
) STRICT;
