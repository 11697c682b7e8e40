-- A steady run (every verdict as it was but for its times) keeps the times of its accounts in
-- one row instead of rewriting each account's status: `entries` holds, in increasing account
-- id, three little-endian 64-bit integers an account: its id, and the milliseconds since 1970
-- of its last attempt and of its last success (the smallest integer for none).
CREATE TABLE steady_checks (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    entries BLOB NOT NULL
) STRICT;
-- 1 when the account's last attempt and success are the ones `steady_checks` holds for it,
-- not the row's own; a status written in full sets it back to 0.
ALTER TABLE account_status ADD COLUMN steady_times INTEGER NOT NULL DEFAULT 0;
