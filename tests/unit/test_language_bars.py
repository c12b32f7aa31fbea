"""Issue #40's bars on the pages themselves: Polish counts in their three forms on History and
Stats (1 wpis, 2 wpisy, 5 wpisów, 22 wpisy), French month names on Year, a German decimal comma
in Stats; and what is data or a code — a Daylio import's report, the exports, the API's error
codes — the same whatever language the person reads."""

from __future__ import annotations

import re

from tests.unit.test_daylio_csv import NEWEST, csv_bytes
from tests.unit.test_import_pages import upload

COUNTS = {2022: (1, "1 wpis"), 2023: (2, "2 wpisy"), 2024: (5, "5 wpisów"), 2025: (22, "22 wpisy")}


def log(client, day: str, mood: int = 3) -> None:
    assert client.post("/api/entries", {"mood": mood, "occurred_at": f"{day}T09:00:00"}
                       ).status == 201


def test_polish_counts_take_their_three_forms_on_history_and_stats(client_for):
    ola = client_for("ola")
    assert ola.patch("/api/me", {"language": "pl"}).status == 200
    for year, (n, _) in COUNTS.items():
        for i in range(n):
            log(ola, f"{year}-03-{1 + i:02d}")
    history = ola.get("/entries").text
    assert '<html lang="pl"' in history
    for year, (_, said) in COUNTS.items():
        assert f'{year} <span class="muted">{said}</span>' in history, year
    for n, said in COUNTS.values():  # Stats counts a range: a journal each
        one = client_for(f"ola{n}")
        assert one.patch("/api/me", {"language": "pl"}).status == 200
        for i in range(n):
            log(one, f"2025-03-{1 + i:02d}")
        number, word = said.split()
        assert f"<strong>{number}</strong> {word} (" in one.get("/stats?range=all").text, said


def test_year_names_its_months_in_french(client_for):
    lea = client_for("lea")
    log(lea, "2025-02-03")
    year = lea.get("/calendar?year=2025", headers={"Accept-Language": "fr-FR,fr;q=0.9"}).text
    assert '<html lang="fr"' in year
    main = year.split("<main", 1)[1]
    assert all(f'<span class="skip">{name}</span>' in main
               for name in ("janvier", "février", "décembre")), main[:2000]
    assert not re.search(r">(January|February|December)<", main)


def test_stats_averages_take_a_german_decimal_comma(client_for):
    udo = client_for("udo")
    assert udo.patch("/api/me", {"language": "de"}).status == 200
    log(udo, "2026-11-02", 3)
    log(udo, "2026-11-03", 2)
    stats = udo.get("/stats?range=all").text
    assert re.search(r'<span class="average">2,50 ', stats), stats[:3000]
    assert '<span class="average">2.50 ' not in stats


def test_imports_exports_and_api_codes_are_the_same_in_every_language(client_for):
    rows = ["2024-01-02,,,18:00,good,walk,,,rainy", "2024-01-01,,,9:00,good,,,,sunny"]
    said = {}
    for name, language in (("en_user", None), ("de_user", "de"), ("pl_user", "pl")):
        me = client_for(name)
        if language:
            assert me.patch("/api/me", {"language": language}).status == 200
        headers = {"Accept-Language": language or "en"}
        body = {"file": csv_bytes(NEWEST, *rows)}
        imported = upload(me, "/api/import/daylio", {}, body)
        assert imported.status == 200, imported.text
        report = {key: value for key, value in imported.json.items() if key != "import_id"}
        exported = me.get("/api/export?format=csv", headers=headers).text
        refused = me.post("/api/entries", {"mood": 9}, headers=headers)
        said[name] = (report, exported, refused.status, refused.json["error"])
    assert said["de_user"] == said["en_user"] == said["pl_user"]


def test_a_week_shown_starts_on_the_languages_first_day(client_for):
    """The reminder's days and Stats' weekday chart run as the language's week does (Sunday
    first in Brazil, Monday in Germany); what is stored is the same weekday numbers."""
    ana = client_for("ana")
    for language, first in (("pt_BR", "6"), ("de", "0")):
        assert ana.patch("/api/me", {"language": language}).status == 200
        form = ana.get("/settings/reminders").text
        days = re.findall(r'name="weekday" value="(\d)"', form)
        assert days[0] == first and sorted(days) == list("0123456"), (language, days)
