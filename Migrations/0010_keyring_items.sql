-- Which keyring item holds a token, so that a rotation can write its successor beside the
-- token in use instead of over it.

-- The `account` attribute of the keyring item (service gitbay-sync) that holds the account's
-- token, while `store` is 'keyring'. NULL: the item named after the account (accounts.name),
-- where every sign-in keeps its token. A rotation writes the successor to an item of its own,
-- then points here at it in the transaction that records the predecessor as stale.
ALTER TABLE api_tokens ADD COLUMN keyring_item TEXT;

-- The keyring item that holds, or may hold, a stale token: a rotation's successor written
-- but not made current (a crash in between), or the predecessor it replaced. Runs delete the
-- item once the token is revoked, before they forget the name. NULL: no item to delete.
ALTER TABLE stale_api_tokens ADD COLUMN keyring_item TEXT;
