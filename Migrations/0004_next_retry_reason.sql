-- Why an account waits until next_retry_at, so `status` and `run` can say: 'backoff'
-- (failures in a row), 'retry-after' (the server asked), 'write-limit' (the server's write
-- limit named the wait), 'denied' or 'push-disabled' (retried rarely). NULL when it does not
-- wait.
ALTER TABLE account_status ADD COLUMN next_retry_reason TEXT;
