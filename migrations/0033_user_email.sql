-- An account's email address (issue #41), optional: single sign-on may link a first sign-in
-- to the account whose address the OpenID provider says is the person's and has verified
-- (KMOOD_SSO_LINK_BY_EMAIL). k-mood sends no email. One address is one account's, compared
-- without regard to ASCII case.
ALTER TABLE users ADD COLUMN email TEXT;
CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE email IS NOT NULL;
