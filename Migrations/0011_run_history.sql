-- The latest runs, newest kept, for `status --history`: when each started and ended, what
-- started it, how it went and what it changed. A run writes its row in a transaction it makes
-- anyway (a steady run's, the one that records its verdicts), and deletes the rows past the
-- newest 50 in the same transaction.
CREATE TABLE run_history (
    id              INTEGER PRIMARY KEY,
    started_at      TEXT NOT NULL,
    -- The process that ran it: with started_at, what names the run while it writes its row.
    pid             INTEGER NOT NULL,
    finished_at     TEXT NOT NULL,
    -- 'run' (typed), 'every' (a cycle of `run --every`), 'service' (`run --unattended`: the
    -- service at login, or started by hand), 'timer' (`run --unattended` started by a systemd
    -- timer, which sets TRIGGER_UNIT).
    trigger         TEXT NOT NULL CHECK (trigger IN ('run', 'every', 'service', 'timer')),
    -- 'ok' (no account failed), 'failed' (one or more did), 'interrupted' (stopped by a signal).
    result          TEXT NOT NULL CHECK (result IN ('ok', 'failed', 'interrupted')),
    accounts        INTEGER NOT NULL,
    -- Accounts whose row was added (first, again, or for a new token), and whose rows were removed.
    added           INTEGER NOT NULL DEFAULT 0,
    removed         INTEGER NOT NULL DEFAULT 0,
    -- The names of the accounts that failed, one a line.
    failed_accounts TEXT NOT NULL DEFAULT '',
    UNIQUE (started_at, pid)
) STRICT;
