-- Which process is reconciling an account right now. Two runs never reconcile one account at
-- once, and a removal never deletes an account while a run may still add a row for it, yet
-- no lock is held across the network: a lease is a row, taken and given back in short
-- transactions, and one whose process is gone (or that outlived its expiry) is taken over.
CREATE TABLE account_leases (
    account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    -- The holding process, and one taking by it (a process may run several commands).
    holder_pid INTEGER NOT NULL,
    holder_id  TEXT NOT NULL,
    taken_at   TEXT NOT NULL,
    expires_at TEXT NOT NULL
) STRICT;
