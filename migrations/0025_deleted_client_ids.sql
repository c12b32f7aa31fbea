-- The client ids of deleted entries, per user: an outbox that sends an entry again (its first
-- answer lost, on a device that did not see the delete) is answered 410 `deleted` instead of
-- bringing the entry back. Written in the delete's own transaction; the worker prunes a row
-- after KMOOD_DELETED_CLIENT_IDS_KEEP_S.
CREATE TABLE deleted_client_ids (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id TEXT NOT NULL,
    deleted_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, client_id)
) WITHOUT ROWID;

CREATE INDEX deleted_client_ids_age ON deleted_client_ids (deleted_at);
