-- An install is bound to the machine it was made on, and one server may answer under several
-- names.

-- SHA-256 of the machine's identity (/etc/machine-id and the like, never the id itself),
-- under which the install marker, the records and the token history were made. A database
-- opened on another machine is a new install there. NULL until first opened by a version
-- that knows it, or where no identity can be read.
ALTER TABLE device ADD COLUMN machine TEXT;
-- When this database was found on another machine than the one it was made on, and became a
-- new install here; NULL when it never moved.
ALTER TABLE device ADD COLUMN moved_at TEXT;

-- When the current removal of an account began (the account became 'removing'); a sign-in
-- clears it. The step that deletes the account checks it is still the one its removal began
-- with, so a sign-in made meanwhile wins.
ALTER TABLE accounts ADD COLUMN removal_started_at TEXT;

-- When the user last preferred an account on an instance: of several names found to be one
-- server, the latest choice holds.
ALTER TABLE instances ADD COLUMN preferred_at TEXT;

-- Two instance URLs found to name one server: a row this install recorded under one URL left
-- its account's list and appeared, same id and `added`, in another account's list under the
-- other URL, at this install's own add. Kept in both directions' stead: one row a pair, the
-- URLs in text order.
CREATE TABLE same_servers (
    instance   TEXT NOT NULL,
    other      TEXT NOT NULL CHECK (other > instance),
    -- The row that moved, and when it was seen to.
    device_id  INTEGER NOT NULL,
    added      TEXT NOT NULL,
    proven_at  TEXT NOT NULL,
    PRIMARY KEY (instance, other)
) STRICT;
