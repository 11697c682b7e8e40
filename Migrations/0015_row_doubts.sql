-- What one account's pass learned about another's row, for that account's own next pass:
-- an add under another name of what may be the same server may have moved the row (the add
-- failed unanswered, or the lists that would settle it could not be read). Only the account's
-- own pass writes its status; until it lists again, `status` shows a `registered` account with
-- a doubt as `pending`, naming the other instance. The pass's verdict clears the doubts older
-- than its list.
CREATE TABLE row_doubts (
    account_id  INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    since       TEXT NOT NULL,
    by_instance TEXT NOT NULL
) STRICT;
