"""The report (SPEC §15): some days of a person's journal as one printable document, at
/report for the person, and at /shared/<link> for whoever they gave a link to — that report
and nothing else: no other page, no API, no photo outside it, no session.

A shared report is public by its link's secret (journal.sharing), fixed in what it shows when
the link was made, rate-limited per link and per address, never indexed, never kept by a
shared cache, and gone (404) the moment it is revoked.
"""

from __future__ import annotations

import ipaddress
from datetime import date

import bottle

from kmood_lib.core.errors import TooMany, ValidationError
from kmood_lib.core.gate import ServerBusy, StillComputing
from kmood_lib.core.i18n import N_, Phrase, Translator
from kmood_lib.core.timezones import local_today
from kmood_lib.journal import insight_words as words
from kmood_lib.journal import insights, photos, reports, sharing, vocab
from kmood_lib.journal.evidence import evidence_from
from kmood_lib.journal.sharing import Contents
from kmood_lib.web import files, stats_charts
from kmood_lib.web.authentication import Auth, client_address
from kmood_lib.web.http import Params, query_params
from kmood_lib.web.ranges import RANGES, opening_range, range_days
from kmood_lib.web.rendering import (
    form_fields,
    page,
    redirect,
    render,
    settings_page,
    translator,
)
from kmood_lib.web.routing import Routes

routes = Routes()

FINDINGS_SHOWN = 5  # the insights that stand out most; the rest are on the Insights page
PHOTO_COST = 0.02  # a photo (or the print CSS) of a shared report: 50 cost one opening
EXPIRY_CHOICES = {1: N_("1 day"), 7: N_("1 week"), 30: N_("30 days"), 90: N_("90 days")}
SHARED_HEADERS = {"X-Robots-Tag": "noindex, nofollow, noarchive",
                  "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


# --- what a report is made of ---------------------------------------------------------------

def asked_contents(conn, user_id: int, params: Params, today: date) -> tuple[Contents, str]:
    """The report a query asks for, and its range's key ("dates" for chosen days): `range`
    (30, 90, 365, all; else where Stats opens), or `from` and `to`; `entries=1`, `photos=1`."""
    key = params.get("range") or ("dates" if params.get("from") or params.get("to")
                                  else opening_range(conn, user_id, today))
    if key == "dates":
        date_from, date_to = params.get("from"), params.get("to")
    elif key in RANGES:
        date_from, date_to = range_days(conn, user_id, key, today)
    else:
        raise ValidationError({"range": Phrase("must be one of {choices}",
                                               choices=", ".join([*RANGES, "dates"]))})
    return Contents.checked(date_from, date_to, params.get("entries") == "1",
                            params.get("photos") == "1"), key


def findings_said(services, conn, user_id: int, contents: Contents, say: Translator) -> dict:
    """The insights of the report's days that stand out most, in their sentences (through the
    insights gate, from its cache once computed); `busy` says when to come back instead."""
    limits = insights.thresholds_from(services.config)
    try:
        found = insights.cached_analysis(conn, services.insight_cache, user_id,
                                         contents.date_from, contents.date_to, limits,
                                         services.insight_gate)
    except ValidationError:  # more days than the insights compare at once
        return {"busy": say.gettext(N_("The insights compare at most {n} days at once; choose"
                                       " fewer days to see them."),
                                    n=say.number(insights.MAX_DAYS))}
    except (StillComputing, ServerBusy) as refused:
        return {"busy": say.ngettext("The insights are still being worked out: reload in {n}"
                                     " second.", "The insights are still being worked out:"
                                     " reload in {n} seconds.", refused.retry_after_s)}
    shown = found["findings"][:FINDINGS_SHOWN]
    return {"busy": None, "days": found["days"], "needed_days": found["needed_days"],
            "checked": found["checked"], "standing_out": len(found["findings"]),
            "findings": [{"title": stats_charts.finding_title(say, f),
                          "kind": say.gettext(words.KINDS.get(f["kind"], f["kind"])),
                          "sentence": stats_charts.finding_sentence(say, f)} for f in shown]}


def report_values(services, conn, owner_id: int, contents: Contents, say: Translator,
                  thumb_url) -> dict:
    """Everything report.tpl shows of a report, in `say`'s language; `thumb_url(photo)` is
    where its photos are fetched from (the owner's own, or the shared link's)."""
    labels = vocab.mood_labels(conn, owner_id)
    found = reports.figures(conn, owner_id, contents.date_from, contents.date_to,
                            evidence_from(services.config))
    summary = found["summary"]
    first, last = date.fromisoformat(contents.date_from), date.fromisoformat(contents.date_to)
    over_time, over_time_note = stats_charts.over_time_chart(
        conn, owner_id, reports.date_filter(contents.date_from, contents.date_to), first, last,
        labels, whole=False, say=say)
    days, total = reports.days_of_entries(conn, owner_id, contents.date_from, contents.date_to) \
        if contents.with_entries else ([], summary["count"])
    return {"contents": contents, "labels": labels, "said": stats_charts.Said(say, labels),
            "summary": summary, "figures": found, "over_time": over_time,
            "over_time_note": over_time_note,
            "distribution": stats_charts.distribution_chart(summary, labels, say)
            if summary["count"] else None,
            "weekday": stats_charts.weekday_chart(found["weekdays"], summary["average"] or 3,
                                                  labels, say) if summary["count"] else None,
            "insight": findings_said(services, conn, owner_id, contents, say)
            if summary["count"] else None,
            "days": days, "entries_total": total, "thumb_url": thumb_url,
            "period": period_said(say, contents)}


def period_said(say: Translator, contents: Contents) -> str:
    return say.gettext(N_("{first} – {last}"), first=say.day(contents.date_from, "yMMMd"),
                       last=say.day(contents.date_to, "yMMMd"))


def page_css(say: Translator, contents: Contents) -> str:
    """The printed pages' margins: the period at the top, the page number at the bottom
    (CSS margin boxes; a browser without them prints its own header and footer instead)."""
    def string(text: str) -> str:  # a CSS string: every character but letters and digits escaped
        return '"' + "".join(c if c.isalnum() or c == " " else f"\\{ord(c):x} " for c in text) + '"'

    title = say.gettext(N_("Mood report, {period}"), period=period_said(say, contents))
    pages = say.gettext(N_("page {page} of {pages}"), page="\x00", pages="\x01")
    before, _, rest = pages.partition("\x00")
    between, _, after = rest.partition("\x01")
    counter = " ".join(part for part in (string(before), "counter(page)", string(between),
                                          "counter(pages)", string(after)) if part != '""')
    return ("@page {\n  @top-left { content: " + string(title) + "; }\n"
            "  @bottom-right { content: " + counter + "; }\n}\n")


def css_response(text: str) -> bottle.HTTPResponse:
    response = bottle.HTTPResponse(text)
    response.content_type = "text/css; charset=utf-8"
    response.set_header("Cache-Control", "no-store")
    return response


# --- the person's own report ----------------------------------------------------------------

def report_page(services, conn, auth: Auth, fields=None, errors=None, status=200
                ) -> bottle.HTTPResponse:
    """The report the query asks for, with what makes it: the days, what it includes, print,
    and a form to share it (`fields` and `errors` when that form was refused)."""
    say = translator(bottle.request, auth.user)
    today = local_today(services.clock, auth.user.timezone)
    params = query_params(bottle.request)
    if fields:  # a refused share form: the report it was about, if its days are days
        sent = Params([(k, fields.get(k) or "") for k in ("from", "to", "entries", "photos")])
        try:
            contents, key = asked_contents(conn, auth.user.id, sent, today)
        except ValidationError:
            contents, key = asked_contents(conn, auth.user.id, Params([]), today)
    else:
        contents, key = asked_contents(conn, auth.user.id, params, today)
    values = report_values(services, conn, auth.user.id, contents, say,
                           lambda photo: photo["thumb_url"])
    return page("report.tpl", auth, active="stats", status=status, wide=True, i18n=say,
                ranges=RANGES, current=key, fields=fields or {}, errors=errors or {},
                expiry_choices=EXPIRY_CHOICES, print_css=css_link(contents), **values)


def css_link(contents: Contents) -> str:
    return f"/report/page.css?from={contents.date_from}&to={contents.date_to}"


@routes.get("/report")
def report(services, conn, auth: Auth):
    return report_page(services, conn, auth)


@routes.get("/report/page.css")
def report_css(services, conn, auth: Auth):
    params = query_params(bottle.request)
    contents = Contents.checked(params.get("from"), params.get("to"))
    return css_response(page_css(translator(bottle.request, auth.user), contents))


def share_labels(exc) -> dict[str, str]:
    labels = {"name": N_("Shared with"), "expires": N_("Open for"), "from": N_("From"),
              "to": N_("To")}
    return {labels.get(name, name): message for name, message in exc.fields.items()} \
        if exc.fields else {N_("Error"): exc.message}


@routes.post("/report/share", form=report_page, labels=share_labels)
def share(services, conn, auth: Auth):
    """Make a link to the report as the form describes it (fixed from now on), and show it
    this once on Settings → Sharing (its secret is stored only as a hash)."""
    fields = form_fields(bottle.request, services.config)
    contents = Contents.checked(fields.get("from"), fields.get("to"),
                                fields.get("entries") == "1", fields.get("photos") == "1")
    days = sharing.expiry_days(fields.get("expires"))
    say = translator(bottle.request, auth.user)
    made, link = sharing.make_link(conn, auth.user.id, fields.get("name"), contents, days,
                                   say.code, services.clock.now_ms())
    return sharing_page(services, conn, auth, status=201, made=(made, link))


# --- Settings → Sharing ---------------------------------------------------------------------

def sharing_page(services, conn, auth: Auth, status: int = 200, made=None):
    now_ms = services.clock.now_ms()
    public = services.config.public_url.rstrip("/") if services.config.public_url else \
        bottle.request.urlparts.scheme + "://" + bottle.request.urlparts.netloc
    return settings_page("sharing", auth, status, links=sharing.list_links(conn, auth.user.id),
                         now_ms=now_ms, made=made, base_url=public,
                         period=lambda c: period_said(translator(bottle.request, auth.user), c))


@routes.get("/settings/sharing")
def sharing_settings(services, conn, auth: Auth):
    return sharing_page(services, conn, auth)


@routes.post("/settings/sharing/<link_id:id>/revoke")
def revoke(conn, auth: Auth, link_id: int):
    sharing.revoke_link(conn, auth.user.id, link_id)
    return redirect("/settings/sharing", "link_revoked")


# --- the shared report ----------------------------------------------------------------------

def address_key(address: str) -> str:
    """Whom the rate limit counts: an IPv4 address, or an IPv6 address's /64 (one host's)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def too_often(wait: int) -> TooMany:
    return TooMany(Phrase("This report was opened too often just now; try again in {n} s.",
                          n=wait), wait)


def open_shared(services, conn, link: str, cost: float) -> sharing.SharedReport:
    """The link's report, within KMOOD_SHARED_REPORT_RATE, else 429: the address pays
    before the link is looked up (a guess costs as much as an opening), the link itself only
    once its secret is right (so nobody without it can use up its holder's share)."""
    address = address_key(client_address(bottle.request, services.config.trust_proxy))
    if wait := services.shared_rate.take([("address", address)], cost):
        raise too_often(wait)
    shared = sharing.open_link(conn, link, services.clock.now_ms())
    if wait := services.shared_rate.take([("link", shared.id)], cost):
        raise too_often(wait)
    return shared


def shared_answer(response: bottle.HTTPResponse, kept: bool = False) -> bottle.HTTPResponse:
    """A shared link's answer: never indexed, no referrer; never kept, or if `kept` (a photo)
    kept privately and revalidated at every use, so a revoked link shows nothing more."""
    for name, value in SHARED_HEADERS.items():
        if not (kept and name == "Cache-Control"):
            response.set_header(name, value)
    return response


def shared_translator(services, shared: sharing.SharedReport) -> Translator:
    """The language the link was made in (what the report shows was fixed then)."""
    return services.languages.choose(shared.language, None, services.config.default_language)


@routes.get("/shared/<link:link>", auth="public")
def shared_report(services, conn, link: str):
    shared = open_shared(services, conn, link, 1.0)
    say = shared_translator(services, shared)
    values = report_values(services, conn, shared.user_id, shared.contents, say,
                           lambda photo: f"/shared/{link}/photos/{photo['id']}")
    answer = shared_answer(render("shared_report.tpl", i18n=say, shared=shared, bare=True,
                                  print_css=f"/shared/{link}/page.css", **values))
    if bottle.request.method == "GET":  # shown (a HEAD is not an opening)
        sharing.count_opening(conn, shared, services.clock.now_ms())
    return answer


@routes.get("/shared/<link:link>/page.css", auth="public")
def shared_css(services, conn, link: str):
    shared = open_shared(services, conn, link, PHOTO_COST)
    return shared_answer(css_response(page_css(shared_translator(services, shared),
                                               shared.contents)))


@routes.get("/shared/<link:link>/photos/<photo_id:id>", auth="public")
def shared_photo(services, conn, link: str, photo_id: int):
    """A thumbnail of a photo the report shows (its entries and photos in it, the photo's
    entry within its days); anything else is no such photo."""
    shared = open_shared(services, conn, link, PHOTO_COST)
    sharing.photo_in_report(conn, shared, photo_id)
    asked = files.Asked.of(bottle.request)
    stored = photos.file_of(conn, shared.user_id, photo_id, "thumb")
    if files.none_match(asked.if_none_match, stored.etag):
        return shared_answer(files.not_modified(stored.etag), kept=True)
    stored, reader = photos.open_file(services.connect, shared.user_id, photo_id, "thumb")
    return shared_answer(files.answer(asked, reader, stored.content_type, stored.etag), kept=True)
