-- Sign-ins under way (SPEC §14, issue #41): an OpenID Connect authorization request waiting
-- for the provider to send the person back (its state, nonce and PKCE verifier), and later a
-- passkey's challenge. Each is single-use (taken by one DELETE ... RETURNING), short-lived,
-- and bound to the browser that began it (the hash of a cookie only that browser holds);
-- only hashes of the state and of that cookie are stored. `user_id` is set when a signed-in
-- person links a new way in to their own account.
CREATE TABLE pending_sign_ins (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    handle_hash TEXT NOT NULL UNIQUE,
    browser_hash TEXT NOT NULL,
    user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX pending_sign_ins_expires ON pending_sign_ins (expires_at);

-- How each session began: 'password', 'proxy', 'oidc' (logging out of one made by the OpenID
-- provider can sign out there too); NULL for sessions made before this column.
ALTER TABLE sessions ADD COLUMN via TEXT;
