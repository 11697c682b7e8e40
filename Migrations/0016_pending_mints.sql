-- A token `login --ssh` is about to mint on a server no account here is signed in to: its
-- name, recorded before the mint, for the account it will belong to is not known until the
-- token answers `whoami`. A login stopped between the mint and the sign-in (a kill, a crash)
-- leaves the name here; the next sign-in to that server takes it as a stale name of its
-- account (`stale_api_tokens`), which runs and `remove-account` revoke.
CREATE TABLE pending_mints (
    instance        TEXT NOT NULL,
    ssh_destination TEXT NOT NULL,
    name            TEXT NOT NULL,
    recorded_at     TEXT NOT NULL,
    PRIMARY KEY (instance, ssh_destination, name)
) STRICT;
