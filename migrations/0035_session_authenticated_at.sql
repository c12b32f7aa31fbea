-- When the person behind a session last proved who they are (issue #41): a password or a
-- passkey at that sign-in, or the OpenID provider's `auth_time`; NULL for a session the
-- sign-in proxy made (it vouches on every request, so none of them is a fresh sign-in), an
-- answer from a provider that names no auth_time, and sessions made before this column.
-- Changing how an account signs in without its password needs one within minutes.
ALTER TABLE sessions ADD COLUMN authenticated_at INTEGER;
