-- The row a doubt is about, when one is known: another account recorded a row holding this
-- device's token under another name, with the same id and `added` as this account's record
-- of it. When this account's own next list no longer has that row, the row moved from one
-- name to the other: they name one server, and the pass records the proof. Null for a doubt
-- left by an add that failed unanswered, which says only that the row may have moved.
ALTER TABLE row_doubts ADD COLUMN device_id INTEGER;
ALTER TABLE row_doubts ADD COLUMN added TEXT;
-- Doubts are ordered by a count, not by the clock (which may stand still or go back): a pass
-- settles only the doubts raised before its round began, and a run takes up in another round
-- those raised during one.
ALTER TABLE row_doubts ADD COLUMN raised INTEGER NOT NULL DEFAULT 0;
CREATE TABLE doubts_raised (count INTEGER NOT NULL) STRICT;
INSERT INTO doubts_raised (count) VALUES (0);
