-- Accounts are read in sign-in order on every run: the index walks them in that order, where
-- SQLite would otherwise copy every row into a sorter first.
CREATE INDEX accounts_sign_in_order ON accounts (signed_in_at, id);
