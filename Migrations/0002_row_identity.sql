-- A record names one server row over time and the token that row holds. Ids alone prove
-- nothing (a server reuses them) and neither does the token display (it shows 8 bytes).

-- `added` as the server lists it: set when the row is inserted and never changed, so (id,
-- added) names one row. NULL until the row is seen in a list; records kept before this
-- migration get theirs from the next list.
ALTER TABLE registrations ADD COLUMN added TEXT;
-- The token the row holds: SHA-256 in hex, length in bytes, and how a v1.32.1 server shows
-- it. NULL for records kept before this migration: which token they hold is not known.
ALTER TABLE registrations ADD COLUMN token_fingerprint TEXT;
ALTER TABLE registrations ADD COLUMN token_length INTEGER;
ALTER TABLE registrations ADD COLUMN token_shown TEXT;
-- Written on every steady run and never read.
ALTER TABLE registrations DROP COLUMN verified_at;

-- The same for the tokens this device held before; NULL for those retired before this migration.
ALTER TABLE device_token_history ADD COLUMN fingerprint TEXT;
ALTER TABLE device_token_history ADD COLUMN length INTEGER;
ALTER TABLE device_token_history ADD COLUMN shown TEXT;

-- Every gitbay keeps one row per token: there is nothing to learn about an instance, and a
-- lesson stored by an earlier version is discarded.
ALTER TABLE instances DROP COLUMN row_policy;
