-- The push switch as the user last set it here with `push off` (1) or `push on` (0): a
-- deliberate choice that `status` shows, not a failure. The server holds the setting itself;
-- this is only what was asked for from this device.
ALTER TABLE accounts ADD COLUMN push_off INTEGER NOT NULL DEFAULT 0 CHECK (push_off IN (0, 1));
