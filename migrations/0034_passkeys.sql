-- Passkeys (SPEC §14, issue #41): WebAuthn credentials, each one account's, found by the
-- credential's id when the browser signs in with it (discoverable: no user name typed). The
-- public key and the signature counter are what each sign-in is checked against; a counter
-- that goes backwards is a cloned authenticator and is refused. `passkey_user_id` is the
-- random handle an authenticator keeps for the account (never its row id or name).
CREATE TABLE passkeys (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    credential_id BLOB NOT NULL UNIQUE,
    public_key BLOB NOT NULL,
    sign_count INTEGER NOT NULL DEFAULT 0,
    name TEXT NOT NULL,
    transports TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    last_used_at INTEGER
);
CREATE INDEX passkeys_user ON passkeys (user_id);
ALTER TABLE users ADD COLUMN passkey_user_id BLOB;
-- The passkey a session was signed in with: removing the passkey (a lost phone) ends them.
ALTER TABLE sessions ADD COLUMN passkey_id INTEGER;
CREATE UNIQUE INDEX users_passkey_user_id ON users (passkey_user_id)
    WHERE passkey_user_id IS NOT NULL;
