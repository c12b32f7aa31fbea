-- Sign-ins under way, capped per client address (issue #41): anyone may begin one, and one
-- client that begins thousands (dropping its cookie each time) must push out only its own,
-- never the household's. `address_hash` is a hash of the client's address; the rows that
-- were under way before this column have none, so they count as one address of their own.
ALTER TABLE pending_sign_ins ADD COLUMN address_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX pending_sign_ins_browser ON pending_sign_ins (browser_hash);
CREATE INDEX pending_sign_ins_address ON pending_sign_ins (address_hash);
