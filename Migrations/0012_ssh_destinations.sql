-- Where the account's server serves SSH, as `login --ssh` was given it (`user@host` or
-- `user@host:port`): the commands a message gives for revoking a token by hand go there.
-- NULL: never given, and `git@` the instance's host is meant.
ALTER TABLE accounts ADD COLUMN ssh_destination TEXT;
