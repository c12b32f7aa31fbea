"""The journal pages: log an entry (home), history, edit, delete — plain forms over the same
domain functions as the JSON API; they work without JavaScript."""

from __future__ import annotations

import calendar
from datetime import date
from zoneinfo import ZoneInfo

import bottle

from kmood_lib.core.blobs import BytesReader
from kmood_lib.core.db import transaction
from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.i18n import N_
from kmood_lib.enrich.song_metadata import cover_of
from kmood_lib.journal import goals, photos, queries, saving, stats, templates, vocab, writes
from kmood_lib.journal.starter import STARTER, starter_offered
from kmood_lib.web import back, entry_form, files, uploads
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import Params, parse_urlencoded, query_params
from kmood_lib.web.rendering import form_fields, page, redirect, translator
from kmood_lib.web.routing import Routes
from kmood_lib.web.template_helpers import date_text

routes = Routes()

HISTORY_PAGE = 30


def group_activities(activities: list[dict]) -> list[tuple[str | None, list[dict]]]:
    """[(group name or None, activities)], named groups first, as list_activities orders them."""
    groups: dict[str | None, list[dict]] = {}
    for activity in activities:
        groups.setdefault(activity["group"], []).append(activity)
    return list(groups.items())


def by_day(found: list[dict]) -> list[tuple[str, list[dict]]]:
    """Entries (newest first) grouped by their own local day."""
    days: dict[str, list[dict]] = {}
    for entry in found:
        days.setdefault(entry["occurred_at"][:10], []).append(entry)
    return list(days.items())


@routes.get("/covers/<release:mbid>")
def cover(conn, auth: Auth, release: str):
    """A release's cover, stored by the worker: the browser never loads a third party."""
    asked = files.Asked.of(bottle.request)
    found = cover_of(conn, auth.user.id, release)
    if found is None:
        raise bottle.HTTPError(404, "No cover for this release.")
    return files.answer(asked, BytesReader(found[1]), found[0], f'"{release}"')


def local_now(services, user):
    return services.clock.now().astimezone(ZoneInfo(user.timezone))


FEW_ACTIVITIES = 20  # more than this: the most used come first, the rest fold away
MOST_USED = 12


def vocabulary(conn, user_id: int, keep=None, fold: bool = True) -> dict:
    """Labels, activity chips and metrics for a form: archived activities are left out
    unless `keep` names them (an edited entry keeps the ones it has); None keeps all. Past
    FEW_ACTIVITIES (and with `fold`), `favourites` holds the ones ticked on the form (an
    edited entry's own) and the most used, MOST_USED in all unless more are ticked, and
    `groups` the rest: the mood, the activities, the note and Save fit one phone screen
    however many there are."""
    activities = [a for a in vocab.list_activities(conn, user_id)
                  if keep is None or not a["archived"] or a["name"] in keep]
    favourites = []
    if fold and len(activities) > FEW_ACTIVITIES:
        ticked = [a for a in activities if a["name"] in (keep or ())]
        used = sorted((a for a in activities if a["entries"] and a["name"] not in (keep or ())),
                      key=lambda a: (-a["entries"], a["name"].casefold()))
        favourites = ticked + used[:max(0, MOST_USED - len(ticked))]
        shown = {a["id"] for a in favourites}
        activities = [a for a in activities if a["id"] not in shown]
    return {"labels": vocab.mood_labels(conn, user_id), "favourites": favourites,
            "groups": group_activities(activities),
            "metrics": vocab.list_metrics(conn, user_id)}


def posted_entry(services, conn, auth: Auth, creating: bool, fields: Params | None = None
                 ) -> dict:
    """The log or edit form's fields (read from the request unless given) as the API's JSON
    body."""
    if fields is None:
        fields = form_fields(bottle.request, services.config)
    return entry_form.entry_body(fields, vocab.list_metrics(conn, auth.user.id), creating=creating)


# --- log ----------------------------------------------------------------------------------

def home_page(services, conn, auth: Auth, fields: Params | None = None, errors=None, status=200):
    user = auth.user
    i18n = translator(bottle.request, user)
    today = local_now(services, user).date()
    todays, _ = queries.list_entries(conn, user.id, queries.EntryFilter(
        date_from=today.isoformat(), date_to=today.isoformat()), 50, None)
    current, longest = stats.streaks(conn, user.id, today)
    values = entry_form.values_posted(fields) if fields is not None else (
        entry_form.values_new(local_now(services, user)))
    offered = templates.list_templates(conn, user.id)
    asked = None
    if fields is None:  # ?template=<id>: the form starts from it (without script)
        chosen = query_params(bottle.request).get("template", "")
        picked = next((t for t in offered if str(t["id"]) == chosen), None)
        if picked:
            values.update(note_title=picked["note_title"], note=picked["note"])
        asked = entry_form.day_asked(query_params(bottle.request), today)
        if asked:  # ?day=&at=: a reminder's day, not now
            values.update(date=asked[0], time=asked[1] or values["time"])
    when = entry_form.when_line(values, today, now=fields is None and not asked, i18n=i18n)
    return page("home.tpl", auth, active="log", status=status, values=values, when=when,
                photo_limits=uploads.limits_of(services), templates=offered,
                goals=goals.list_goals(conn, user.id, today, archived=False),
                errors=errors or {}, i18n=i18n, todays=todays,
                streak=current, longest=longest,
                today=today.isoformat(), scripts=("log.js",), preset=bool(asked),
                starter_set=STARTER if starter_offered(conn, user.id) else (),
                **vocabulary(conn, user.id, keep=values.get("activities", set())))


@routes.get("/")
def home(services, conn, auth: Auth):
    return home_page(services, conn, auth)


@routes.post("/entries", form=home_page, labels=entry_form.form_errors, max_body="photos")
def log_entry(services, conn, auth: Auth):
    """A new entry with its photos; the same form again (its client_id) changes nothing:
    asked first, so the replay's photos are not even read. One whose entry was deleted since
    is not saved again: the log page says so."""
    body = posted_entry(services, conn, auth, creating=True)
    saved = saving.replay_of(conn, auth.user.id, body)
    if saved is None:
        prepared = uploads.prepare_uploaded(services, required=False)  # refused: nothing saved
        saved = saving.create(services, conn, auth.user, body, "web")
        if prepared and saved.created:  # not when a twin of this post saved it meanwhile
            uploads.store(services, conn, auth.user.id, saved.entry_id, prepared)
    return redirect("/", "deleted_before" if saved.deleted else "logged")


# --- history ------------------------------------------------------------------------------

FILTERS = ("q", "from", "to", "mood", "activity")  # History's filters, as query parameters
# A filter that cannot be used is named as the filter form names it (in English, as every
# form's refusals reach _errors.tpl, which says them in the page's language).
FILTER_LABELS = {"q": N_("Search"), "from": N_("From"), "to": N_("To"), "mood": N_("Mood"),
                 "activity": N_("Activity"), "cursor": N_("Older entries")}


def wanted_of(params: Params) -> dict[str, str]:
    """History's filters as asked (moods, one parameter each, joined as the API takes them)."""
    wanted = {name: params.get(name, "") for name in FILTERS}
    wanted["mood"] = ",".join(m for m in params.getall("mood") if m)
    return wanted


@routes.get("/entries")
def history(services, conn, auth: Auth):
    query = query_params(bottle.request)
    i18n = translator(bottle.request, auth.user)
    wanted = wanted_of(query)
    errors = {}
    try:  # a filter that cannot be used is shown beside the filter form, not as an error page
        flt = queries.parse_filter(wanted)
        found, cursor = queries.list_entries(conn, auth.user.id, flt, HISTORY_PAGE,
                                             query.get("cursor") or None)
    except ValidationError as exc:
        errors = {FILTER_LABELS.get(name, name.capitalize()): message
                  for name, message in exc.fields.items()}
        found, cursor = [], None
    asked = [(k, v) for k, v in back.pairs_of(query) if k in FILTERS]
    here = back.address("/entries", asked + [(k, v) for k, v in back.pairs_of(query)
                                             if k == "cursor"])
    older = back.address("/entries", asked + [("cursor", cursor)]) if cursor else None
    words = vocabulary(conn, auth.user.id, fold=False)
    return page("history.tpl", auth, active="history", days=by_day(found), older=older,
                today=local_now(services, auth.user).date().isoformat(), back=here,
                wanted=wanted, moods=set(query.getall("mood")), errors=errors,
                filtered=any(wanted.values()),
                summary=filter_summary(wanted, words["labels"], i18n),
                years=month_years(queries.months_logged(conn, auth.user.id), i18n),
                status=422 if errors else 200, i18n=i18n, **words)


def month_range(year: int, month: int) -> tuple[str, str]:
    """A calendar month's first and last day, as History's from and to."""
    return (date(year, month, 1).isoformat(),
            date(year, month, calendar.monthrange(year, month)[1]).isoformat())


def month_link(year: int, month: int, i18n, count: int = 0) -> dict:
    """A month as History's month jump and the day view name and link it, in the language of
    `i18n`: "Mar", "March 2025"."""
    first, last = month_range(year, month)
    return {"name": i18n.month_name(month, "abbreviated"),
            "long": date_text(i18n, date(year, month, 1), "yMMMM"),
            "count": count, "from": first,
            "href": back.address("/entries", [("from", first), ("to", last)])}


def month_years(months: list[tuple[str, int]], i18n) -> list[dict]:
    """The month jump: each year with entries, newest first, with its twelve months in
    calendar order (count 0 where nothing was logged)."""
    years: dict[int, dict[int, int]] = {}
    for month, count in months:
        years.setdefault(int(month[:4]), {})[int(month[5:])] = count
    return [{"year": year, "total": sum(counts.values()),
             "months": [month_link(year, m, i18n, counts.get(m, 0)) for m in range(1, 13)]}
            for year, counts in years.items()]


def dates_words(date_from: str, date_to: str, i18n) -> str | None:
    """'March 2025', '14 Mar 2025', 'from 1 Mar 2025', '1 Mar 2025 to 9 Apr 2025' or None:
    History's dates as a person would say them, in the language of `i18n`."""
    try:
        first, last = (date.fromisoformat(d) if d else None for d in (date_from, date_to))
    except ValueError:
        return None
    if first and last and (first.isoformat(), last.isoformat()) == month_range(first.year,
                                                                              first.month):
        return date_text(i18n, first, "yMMMM")
    if first and last:
        if first == last:
            return date_text(i18n, first, "yMMMd")
        return i18n.gettext(N_("{first} to {last}"), first=date_text(i18n, first, "yMMMd"),
                            last=date_text(i18n, last, "yMMMd"))
    if first:
        return i18n.gettext(N_("from {day}"), day=date_text(i18n, first, "yMMMd"))
    if last:
        return i18n.gettext(N_("until {day}"), day=date_text(i18n, last, "yMMMd"))
    return None


def filter_summary(wanted: dict[str, str], labels: dict[int, str], i18n
                   ) -> list[tuple[str, bool]]:
    """What History's folded filter panel says is active: the dates, moods, activity and the
    words searched for, each short; each as (text, whether it is the person's own words)."""
    parts = [(dates_words(wanted["from"], wanted["to"], i18n), False)]
    levels = sorted({int(m) for m in wanted["mood"].split(",") if m in ("1", "2", "3", "4", "5")},
                    reverse=True)
    parts.append((", ".join(labels[level] for level in levels), True))
    parts.append((wanted["activity"], True))
    # Translators: the words History was asked to search for, in the language's quotes.
    parts.append((i18n.gettext(N_("“{words}”"), words=wanted["q"]) if wanted["q"] else "", True))
    return [(text, own) for text, own in parts if text]


def day_words(day: date | None, i18n, year: int | None = None) -> tuple[str, str]:
    """('Fri', '14 Mar 2025') — ('Fri', '14 Mar') when it is in `year`; ('', '') for None:
    in the language of `i18n`."""
    if day is None:
        return "", ""
    return (i18n.weekday_name(day.weekday(), "abbreviated"),
            date_text(i18n, day, "MMMd" if day.year == year else "yMMMd"))


# --- a day --------------------------------------------------------------------------------

DAY_PAGE = 100


@routes.get("/days/<day:day>")
def day_view(services, conn, auth: Auth, day: str):
    """One local day's entries first on the screen, with the days before and after it that
    have entries: what a day of the Year view opens."""
    try:
        flt = queries.parse_filter({"from": day, "to": day})
    except ValidationError:
        raise NotFound("day", "no such date") from None
    query = query_params(bottle.request)
    found, cursor = queries.list_entries(conn, auth.user.id, flt, DAY_PAGE,
                                         query.get("cursor") or None)
    shown = date.fromisoformat(day)
    before, after = (date.fromisoformat(d) if d else None
                     for d in queries.days_beside(conn, auth.user.id, day))
    here = back.address(f"/days/{day}", [(k, v) for k, v in back.pairs_of(query)
                                         if k == "cursor"])
    i18n = translator(bottle.request, auth.user)
    return page("day.tpl", auth, active="history", day=shown, found=found, back=here,
                title=date_text(i18n, shown, "yMMMEd"), i18n=i18n,
                count=queries.count_on(conn, auth.user.id, day),
                before=before, after=after, before_words=day_words(before, i18n, shown.year),
                after_words=day_words(after, i18n, shown.year),
                month=month_link(shown.year, shown.month, i18n),
                older=back.address(f"/days/{day}", [("cursor", cursor)]) if cursor else None,
                labels=vocab.mood_labels(conn, auth.user.id))


# --- edit and delete ----------------------------------------------------------------------

def edit_page(services, conn, auth: Auth, entry_id: int, fields: Params | None = None,
              errors=None, status=200, photo_error: str | None = None):
    entry = queries.get_entry(conn, auth.user.id, entry_id)
    posted = entry_form.values_posted(fields) if fields is not None else None
    ticked = set(entry["activities"]) | (posted["activities"] if posted else set())
    words = vocabulary(conn, auth.user.id, keep=ticked)
    values = posted or entry_form.values_of(entry, words["metrics"])
    i18n = translator(bottle.request, auth.user)
    when = entry_form.when_line(values, local_now(services, auth.user).date(), now=False,
                                i18n=i18n, time_known=entry["time_known"] or posted is not None)
    return page("edit.tpl", auth, active="history", status=status, entry=entry, i18n=i18n,
                values=values, when=when, errors=errors or {}, photo_error=photo_error,
                photo_limits=uploads.limits_of(services), scripts=("log.js",),
                back=back_asked(fields), **words)


def photos_refused(services, conn, auth: Auth, entry_id: int, fields, errors, status):
    """The edit page again, the reason an upload was refused under its Photos."""
    return edit_page(services, conn, auth, entry_id, status=status, photo_error=errors["photo"])


@routes.post("/entries/<entry_id:id>/photos", max_body="photos", form=photos_refused,
             labels=lambda exc: {"photo": exc.fields.get("photo", exc.message)})
def add_photos(services, conn, auth: Auth, entry_id: int):
    queries.get_entry(conn, auth.user.id, entry_id)  # someone else's is a 404, not a form
    added = uploads.add_uploaded(services, conn, auth.user.id, entry_id)
    return redirect(f"/entries/{entry_id}/edit#photos", "photos_added", len(added))


@routes.post("/photos/<photo_id:id>/delete")
def remove_photo(conn, auth: Auth, photo_id: int):
    entry_id = photos.remove(conn, auth.user.id, photo_id)
    return redirect(f"/entries/{entry_id}/edit#photos", "photo_removed")


@routes.post("/photos/<photo_id:id>/earlier")
def move_photo_earlier(conn, auth: Auth, photo_id: int):
    with transaction(conn):
        entry_id = photos.move_earlier(conn, auth.user.id, photo_id)
    return redirect(f"/entries/{entry_id}/edit#photos")


@routes.get("/entries/<entry_id:id>/edit")
def edit_form(services, conn, auth: Auth, entry_id: int):
    return edit_page(services, conn, auth, entry_id)


def back_asked(fields: Params | None) -> str | None:
    """Where an edit or delete form goes back to: the checked `back` it posted, or the one
    its page was opened with (from a list's Edit or Delete link)."""
    return back.back_from(fields if fields is not None else query_params(bottle.request))


@routes.post("/entries/<entry_id:id>/edit", form=edit_page, labels=entry_form.form_errors)
def edit_submit(services, conn, auth: Auth, entry_id: int):
    """Saved: back to the list it was opened from (History with its filters and page, a day),
    scrolled to the entry, with the notice."""
    entry = queries.get_entry(conn, auth.user.id, entry_id)  # another's: a 404, not a form
    fields = form_fields(bottle.request, services.config)
    body = entry_form.keeping_date_only(
        posted_entry(services, conn, auth, creating=False, fields=fields), fields, entry)
    saving.update(services, conn, auth.user, entry_id, body)
    return redirect(back.to_entry(back_asked(fields), entry_id), "saved")


@routes.get("/entries/<entry_id:id>/delete")
def delete_form(conn, auth: Auth, entry_id: int):
    entry = queries.get_entry(conn, auth.user.id, entry_id)
    return page("delete.tpl", auth, active="history", entry=entry, back=back_asked(None),
                labels=vocab.mood_labels(conn, auth.user.id))


def listed_by(back_to: str | None, entry: dict) -> queries.EntryFilter:
    """The entries the list at `back_to` shows: History's filters (none that cannot be read),
    a day's, or the log page's (the entry's own day)."""
    path, _, query = (back_to or "/entries").partition("?")
    if path != "/entries":
        day = path[len("/days/"):] if path.startswith("/days/") else entry["occurred_at"][:10]
        return queries.EntryFilter(date_from=day, date_to=day)
    try:
        return queries.parse_filter(wanted_of(parse_urlencoded(query.encode(), "back")))
    except ValidationError:
        return queries.EntryFilter()


@routes.post("/entries/<entry_id:id>/delete")
def delete_submit(services, conn, auth: Auth, entry_id: int):
    """Deleted: back to the list it was opened from, scrolled to the entry that stood beside
    it, with the notice."""
    entry = queries.get_entry(conn, auth.user.id, entry_id)
    back_to = back_asked(form_fields(bottle.request, services.config))
    beside = queries.entry_beside(conn, auth.user.id, listed_by(back_to, entry), entry_id)
    writes.delete_entry(conn, auth.user.id, entry_id, services.clock.now_ms())
    return redirect(back.to_entry(back_to, beside), "deleted")
