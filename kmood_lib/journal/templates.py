"""Note templates: a name and the title and note an entry starts from when it is picked on the
log form (issue #26). Checked like an entry's own title and note."""

from __future__ import annotations

import sqlite3

from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.core.validation import Fields
from kmood_lib.journal.entry_input import MAX_NOTE, MAX_NOTE_TITLE
from kmood_lib.journal.vocab import MAX_NAME

MAX_TEMPLATES = 100  # per person: a log form offers them all


def template_json(row) -> dict:
    return {"id": row["id"], "name": row["name"], "note_title": row["note_title"],
            "note": row["note"]}


def list_templates(conn: sqlite3.Connection, user_id: int) -> list[dict]:
    return [template_json(r) for r in conn.execute(
        "SELECT * FROM note_templates WHERE user_id = ? ORDER BY name_key", (user_id,))]


def get_template(conn: sqlite3.Connection, user_id: int, template_id: int) -> dict:
    row = conn.execute("SELECT * FROM note_templates WHERE id = ? AND user_id = ?",
                       (template_id, user_id)).fetchone()
    if row is None:
        raise NotFound("template")
    return template_json(row)


def _check(body: dict, create: bool) -> dict:
    f = Fields()
    f.reject_fields(body, {"name", "note_title", "note"}, {"id"})
    out = {}
    if create or "name" in body:
        out["name"] = f.text(body, "name", MAX_NAME, required=True, min_len=1, is_name=True)
    for field, longest in (("note_title", MAX_NOTE_TITLE), ("note", MAX_NOTE)):
        if field in body:
            out[field] = f.text(body, field, longest) or ""
    if create and not (out.get("note_title") or out.get("note")):
        f.fail("note", Phrase("a template needs a title or a note"))
    f.raise_if_any()
    return out


def create_template(conn: sqlite3.Connection, user_id: int, body: dict, now_ms: int) -> dict:
    values = _check(body, create=True)
    if conn.execute("SELECT count(*) FROM note_templates WHERE user_id = ?",
                    (user_id,)).fetchone()[0] >= MAX_TEMPLATES:
        raise ValidationError({"name": Phrase("at most {n} templates", n=MAX_TEMPLATES)})
    try:
        row = conn.execute(
            "INSERT INTO note_templates (user_id, name, name_key, note_title, note, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
            (user_id, values["name"], name_key(values["name"]), values.get("note_title", ""),
             values.get("note", ""), now_ms)).fetchone()
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("a template with this name exists")}) from None
    return template_json(row)


def update_template(conn: sqlite3.Connection, user_id: int, template_id: int, body: dict
                    ) -> dict:
    values = _check(body, create=False)
    current = get_template(conn, user_id, template_id)
    merged = {**current, **values}
    if not (merged["note_title"] or merged["note"]):
        raise ValidationError({"note": Phrase("a template needs a title or a note")})
    try:
        conn.execute("UPDATE note_templates SET name = ?, name_key = ?, note_title = ?, note = ?"
                     " WHERE id = ? AND user_id = ?",
                     (merged["name"], name_key(merged["name"]), merged["note_title"],
                      merged["note"], template_id, user_id))
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("a template with this name exists")}) from None
    return get_template(conn, user_id, template_id)


def delete_template(conn: sqlite3.Connection, user_id: int, template_id: int) -> None:
    if conn.execute("DELETE FROM note_templates WHERE id = ? AND user_id = ?",
                    (template_id, user_id)).rowcount == 0:
        raise NotFound("template")


def ensure_templates(conn: sqlite3.Connection, user_id: int, listed: list[dict], now_ms: int
                     ) -> tuple[int, list[str]]:
    """Templates brought by an import, made where the person has none of that name; returns
    (made, problems) — one that does not pass the checks is left out, named."""
    have = {name_key(t["name"]) for t in list_templates(conn, user_id)}
    made, problems = 0, []
    for item in listed:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            problems.append("a template without a name")
            continue
        if name_key(item["name"].strip()) in have:
            continue
        try:
            create_template(conn, user_id, {k: item[k] for k in ("name", "note_title", "note")
                                            if k in item}, now_ms)
        except ValidationError as exc:
            problems.append(f"template {item['name'][:40]!r}: {exc.message}")
            continue
        have.add(name_key(item["name"].strip()))
        made += 1
    return made, problems
