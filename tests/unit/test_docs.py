"""The README and docs/ hold together: every relative link (and image) reaches a file, every
`#anchor` a heading of its target as GitHub names it, every page in docs/ is on the README's
map, and the README's first screen still shows `make run` and `make test`."""

import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`]*`")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"\b(?:src|href)=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose(text: str) -> str:
    """The text without fenced code blocks, where a `#` line is a shell comment, not a heading."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lowercased, punctuation but - and _ dropped,
    spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    kept = "".join(c for c in text if c.isalnum() or c in "-_ ")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor GitHub gives the headings of a Markdown file (repeats get -1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(prose(path.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def relative_links(path: Path) -> list[str]:
    """The targets of a file's Markdown links, images and HTML src/href that stay in the
    repository (not in code)."""
    text = INLINE_CODE.sub("", prose(path.read_text()))
    targets = LINK.findall(text) + HTML_LINK.findall(text)
    return [t for t in targets if not SCHEME.match(t)]


def dead_links(path: Path) -> list[str]:
    """The relative links of a file that reach no file, or no heading of the file they name."""
    dead = []
    for target in relative_links(path):
        name, _, anchor = target.partition("#")
        goal = (path.parent / name).resolve() if name else path
        if not goal.exists():
            dead.append(f"{target}: no file {goal.relative_to(ROOT)}")
        elif anchor and goal.suffix != ".md":
            dead.append(f"{target}: an anchor into a file that is not Markdown")
        elif anchor and anchor not in anchors(goal):
            dead.append(f"{target}: no heading in {goal.relative_to(ROOT)} has that anchor")
    return dead


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_a_heading(path):
    assert dead_links(path) == []


def test_the_readme_maps_every_page_in_docs():
    mapped = {(README.parent / link.partition("#")[0]).resolve() for link in relative_links(README)}
    assert [p.name for p in DOCS if p.resolve() not in mapped] == []


def test_the_readmes_first_screen_shows_how_to_run_and_test():
    first_screen = "\n".join(README.read_text().splitlines()[:40])
    assert "make run" in first_screen
    assert "make test" in first_screen


@pytest.mark.parametrize("heading,anchor", [
    ("Replication (off-machine)", "replication-off-machine"),
    ("Is it healthy?", "is-it-healthy"),
    ("The soak (`make soak`)", "the-soak-make-soak"),
    ("Proof: load, faults and time", "proof-load-faults-and-time"),
    ("KMOOD_DB and snake_case", "kmood_db-and-snake_case"),
])
def test_anchors_are_named_as_github_names_them(heading, anchor):
    assert slug(heading) == anchor


def test_code_is_neither_a_heading_nor_a_link_and_repeated_headings_are_numbered(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n```sh\n# a shell comment\nsee [x](gone.md)\n```\n\n"
                    "`[y](gone.md)` and [z](#notes-1)\n\n## Notes\n\n## Notes\n")
    assert anchors(page) == {"title", "notes", "notes-1"}
    assert relative_links(page) == ["#notes-1"]
