-- Where an account's API token lives. `store` is 'keyring' when the OS keyring holds it (the
-- item of service gitbay-sync and account accounts.name): the row keeps only that reference,
-- and `token` is NULL. 'database' when it is kept here (asked for with `login --token-store
-- database`, or no keyring answered). NULL for a token an earlier version stored here: a run
-- moves it into the keyring once one answers.
CREATE TABLE api_tokens_new (
    account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    token      TEXT,
    name       TEXT,
    expires_at TEXT,
    store      TEXT CHECK (store IN ('database', 'keyring')),
    CHECK ((store IS 'keyring') = (token IS NULL))
) STRICT;

INSERT INTO api_tokens_new (account_id, token, name, expires_at) SELECT account_id, token, name, expires_at FROM api_tokens;
DROP TABLE api_tokens;
ALTER TABLE api_tokens_new RENAME TO api_tokens;
