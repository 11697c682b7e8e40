-- What is known of an account's API token besides the token itself.

-- The name the token was minted under (`token create --name`): given by `login --ssh`, which
-- mints it, or by `login --token-name` for a pasted one. NULL when not known.
ALTER TABLE api_tokens ADD COLUMN name TEXT;
-- When the server stops accepting it, as far as this device knows: `login --ssh` records the
-- start of the mint plus its `--ttl`, which the server's own expiry does not precede. NULL when
-- not known, or for a token that never expires.
ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;
