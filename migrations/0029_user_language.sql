-- The language a person chose for the pages (SPEC §13, issue #40): a code of a catalogue in
-- locale/ such as de or pt_BR; NULL follows the browser's Accept-Language, then
-- KMOOD_DEFAULT_LANGUAGE. A code whose catalogue a later build no longer has is read as NULL.
ALTER TABLE users ADD COLUMN language TEXT;
