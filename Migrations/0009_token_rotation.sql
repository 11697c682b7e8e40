-- What a rotation and a removal need to know of an account's API token besides its name.

-- How long the token was minted to live (`token create --ttl`), in seconds: a rotation mints
-- its successor for as long, once a third of that is left before `expires_at`. NULL when not
-- known (a pasted token, one minted by an earlier version): such a token is not rotated.
ALTER TABLE api_tokens ADD COLUMN lifetime_seconds INTEGER;

-- Names of tokens this install minted for the account, or was about to mint, that are not its
-- current token: a rotation's predecessor not revoked yet, or a successor whose mint may have
-- gone through without being stored (a crash in between). Runs revoke the ones `token list`
-- still shows, and a removal revokes them before the current one. Only names this install
-- wrote here are ever revoked.
CREATE TABLE stale_api_tokens (
    account_id  INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (account_id, name)
);

-- The removal (its `removal_started_at`) whose pre-removal step has passed: a removal retried
-- because the token could not be revoked does not run the step again.
ALTER TABLE accounts ADD COLUMN removal_step_passed_for TEXT;
