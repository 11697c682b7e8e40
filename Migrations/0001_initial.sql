-- The state of one device: which accounts are signed in, the push token, and which server
-- rows this device holds. Migrations are append-only: never edit a file once released.

-- This device. One row at most (id = 1).
CREATE TABLE device (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    -- The current push token, or NULL when none is set. A secret: never printed in full.
    token            TEXT,
    -- Bumped on every new token, so a registration knows which token it was made with.
    token_generation INTEGER NOT NULL DEFAULT 0,
    label            TEXT NOT NULL,
    -- Short random text appended to the label sent to servers, so this install can tell its
    -- own rows from another device's even after losing this database.
    install_marker   TEXT NOT NULL,
    token_set_at     TEXT
) STRICT;

-- Every token this device has held before the current one, as the 8-byte prefix the server
-- shows in `device list` (the full old token is not kept).
CREATE TABLE device_token_history (
    generation INTEGER PRIMARY KEY,
    prefix     TEXT NOT NULL,
    retired_at TEXT NOT NULL
) STRICT;

-- A signed-in account: (instance base URL, canonical username).
CREATE TABLE accounts (
    id           INTEGER PRIMARY KEY,
    instance     TEXT NOT NULL,
    username     TEXT NOT NULL,
    -- user@host or user@host:port, as the CLI names it.
    name         TEXT NOT NULL UNIQUE,
    state        TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused', 'removing')),
    signed_in_at TEXT NOT NULL,
    UNIQUE (instance, username)
) STRICT;

-- API tokens live apart from the records they authorise and are deleted explicitly.
CREATE TABLE api_tokens (
    account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    token      TEXT NOT NULL
) STRICT;

-- What is known of each instance: the account the user wants to hold this device's token,
-- and whether the server keeps one row per token or one per (account, token).
CREATE TABLE instances (
    instance             TEXT PRIMARY KEY,
    preferred_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
    row_policy           TEXT NOT NULL DEFAULT 'unknown'
                         CHECK (row_policy IN ('unknown', 'per-token', 'per-account'))
) STRICT;

-- A server device row this device made (or adopted) for an account.
CREATE TABLE registrations (
    account_id       INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    device_id        INTEGER NOT NULL,
    token_generation INTEGER NOT NULL,
    token_prefix     TEXT NOT NULL,
    made_at          TEXT NOT NULL,
    verified_at      TEXT,
    PRIMARY KEY (account_id, device_id)
) STRICT;

-- The outcome of the latest reconcile of each account.
CREATE TABLE account_status (
    account_id      INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    -- registered, shadowed, paused, removing, auth-failed, denied, push-disabled, error, pending
    condition       TEXT NOT NULL DEFAULT 'pending',
    detail          TEXT,
    last_attempt_at TEXT,
    last_success_at TEXT,
    last_error      TEXT,
    next_retry_at   TEXT,
    failures        INTEGER NOT NULL DEFAULT 0,
    -- The ETag of the last `device list` answer, and the desired state it was seen with: a 304
    -- only vouches for that state.
    list_etag       TEXT,
    etag_basis      TEXT
) STRICT;
