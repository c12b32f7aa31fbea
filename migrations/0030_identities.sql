-- The ways into an account besides its password (SPEC §14, issue #41): the user name a
-- trusted sign-in proxy vouches for (method 'proxy', issuer ''), and an OpenID provider's
-- subject (method 'oidc', issuer: the provider's issuer URL). An identity is linked to one
-- account, by an admin or at an automatic first sign-in, and is then found by what the proxy
-- or provider says, exactly, never by matching names again. An account made at a first
-- sign-in has no password: its password_hash is '!', which no password matches.
CREATE TABLE identities (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    method TEXT NOT NULL CHECK (method IN ('proxy', 'oidc')),
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    UNIQUE (method, issuer, subject)
);
CREATE INDEX identities_user ON identities (user_id);
