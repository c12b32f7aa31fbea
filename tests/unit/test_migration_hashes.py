"""Migrations are only ever added: every landed file keeps the SHA-256 listed for it in
migration_hashes.txt (`sha256sum -c` reads it from migrations/), and every file under
migrations/ is listed. A database migrated between two versions of an edited file stops
start-up with exit 3, so an edit is a new numbered file instead."""

import hashlib
from pathlib import Path

from kmood_lib.core.migrate import MIGRATIONS_DIR

HASHES = Path(__file__).with_name("migration_hashes.txt")


def listed() -> dict[str, str]:
    """File name -> SHA-256, from the checked-in list (one `<sha256>  <name>` line each)."""
    lines = [line.split() for line in HASHES.read_text().splitlines() if line.strip()]
    names = [name for _, name in lines]
    assert len(names) == len(set(names)), f"{HASHES.name} lists a file twice"
    return {name: digest for digest, name in lines}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_landed_migration_is_never_edited_nor_removed():
    for name, digest in listed().items():
        path = MIGRATIONS_DIR / name
        assert path.is_file(), f"migrations/{name} landed and was removed; landed migrations stay"
        assert sha256(path) == digest, (
            f"migrations/{name} changed after it landed; landed migrations are never edited "
            f"(a database migrated in between stops with exit 3): put the change in a new "
            f"numbered file and restore this one")


def test_every_file_under_migrations_is_listed_with_its_hash():
    known = listed()
    unlisted = sorted(p for p in MIGRATIONS_DIR.iterdir() if p.name not in known)
    assert not unlisted, (
        f"not in tests/unit/{HASHES.name}: " + ", ".join(p.name for p in unlisted)
        + ". A new migration appends its line once (never edited afterwards):\n"
        + "\n".join(f"{sha256(p) if p.is_file() else '<not a file>'}  {p.name}"
                    for p in unlisted))
