-- Why the latest run could not check an account, since when, and in how many runs in a row:
-- nothing was asked of its server (its API token could not be read from the OS keyring,
-- another gitbay-sync held it, or what it should have kept changing). `status` says so and
-- exits 1. A verdict a pass saves writes the whole row, which clears them.
ALTER TABLE account_status ADD COLUMN unchecked_reason TEXT;
ALTER TABLE account_status ADD COLUMN unchecked_since TEXT;
ALTER TABLE account_status ADD COLUMN unchecked_runs INTEGER NOT NULL DEFAULT 0;

-- A run where no account failed but one or more could not be checked is 'unchecked', never
-- 'ok'; the accounts it could not check are named, one a line. SQLite cannot change a CHECK
-- in place: both tables are made anew with their rows.
CREATE TABLE run_history_next (
    id                 INTEGER PRIMARY KEY,
    started_at         TEXT NOT NULL,
    pid                INTEGER NOT NULL,
    finished_at        TEXT NOT NULL,
    trigger            TEXT NOT NULL CHECK (trigger IN ('run', 'every', 'service', 'timer')),
    result             TEXT NOT NULL CHECK (result IN ('ok', 'failed', 'interrupted', 'unchecked')),
    accounts           INTEGER NOT NULL,
    added              INTEGER NOT NULL DEFAULT 0,
    removed            INTEGER NOT NULL DEFAULT 0,
    failed_accounts    TEXT NOT NULL DEFAULT '',
    unchecked_accounts TEXT NOT NULL DEFAULT '',
    UNIQUE (started_at, pid)
) STRICT;
INSERT INTO run_history_next (id, started_at, pid, finished_at, trigger, result, accounts, added, removed, failed_accounts)
    SELECT id, started_at, pid, finished_at, trigger, result, accounts, added, removed, failed_accounts FROM run_history;
DROP TABLE run_history;
ALTER TABLE run_history_next RENAME TO run_history;

CREATE TABLE unattended_runs_next (
    trigger            TEXT PRIMARY KEY CHECK (trigger IN ('service', 'every')),
    started_at         TEXT NOT NULL,
    finished_at        TEXT NOT NULL,
    result             TEXT NOT NULL CHECK (result IN ('ok', 'failed', 'interrupted', 'unchecked')),
    accounts           INTEGER NOT NULL,
    failed_accounts    TEXT NOT NULL DEFAULT '',
    waiting            INTEGER NOT NULL DEFAULT 0,
    period_seconds     INTEGER,
    pid                INTEGER NOT NULL,
    unchecked_accounts TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO unattended_runs_next (trigger, started_at, finished_at, result, accounts, failed_accounts, waiting, period_seconds, pid)
    SELECT trigger, started_at, finished_at, result, accounts, failed_accounts, waiting, period_seconds, pid FROM unattended_runs;
DROP TABLE unattended_runs;
ALTER TABLE unattended_runs_next RENAME TO unattended_runs;
