-- Pairs of instance URLs seen to name two servers: after an account under one recorded a row
-- of this device's token, an account under the other still listed the row it had recorded
-- with the same id and `added`. A row that later goes missing never proves such a pair one
-- server (two servers can hand out the same id at the same millisecond).
CREATE TABLE distinct_servers (
    instance  TEXT NOT NULL,
    other     TEXT NOT NULL CHECK (other > instance),
    seen_at   TEXT NOT NULL,
    PRIMARY KEY (instance, other)
) STRICT;
