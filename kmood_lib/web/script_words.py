"""The words the scripts show (static/js/*.js and the service worker), defined once here and
said in the request's language (SPEC §13): every page carries them as a JSON data block
(templates/_script_words.tpl, never run: the CSP keeps `script-src 'self'`) that
static/js/words.js reads for its `say(key, values)`.

A message with a count is sent as its forms for the language's CLDR plural categories
({"one": ..., "few": ..., "many": ...} in Polish); the browser picks one with
Intl.PluralRules. Placeholders stay `{name}` for the browser to fill in.

The service worker has no page: the pages hand it the `sw.` words (offline.js), and until they
have it says them in English, filled into sw.js from here (pages/public.py)."""

from __future__ import annotations

import functools
import json

from kmood_lib.core.i18n import N_, Translator


def n_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with a count for extraction (keyword n_:1,2); said in the browser."""
    return singular, plural


WORDS: dict[str, str | tuple[str, str]] = {
    # dates the scripts write: the weekday and month names come with the words (below)
    "date.day": N_("{weekday} {day} {month} {year}"),
    "date.day_time": N_("{date}, {time}"),
    # the log form (log.js)
    "log.now": N_("Now"),
    "log.today": N_("Today"),
    "log.yesterday": N_("Yesterday"),
    "log.no_date": N_("No date"),
    "log.finding_you": N_("Finding you…"),
    "log.location_added": N_("Location added ({lat}, {lon})."),
    "log.no_location": N_("No location: the browser did not share it."),
    "log.playing_now": N_("Playing now: {song}"),
    "log.attached": N_("Attached: {song}"),
    # Settings → Activities (activities.js)
    "activities.selected": n_("{n} selected", "{n} selected"),
    "activities.not_shown": n_("{n} not shown by the filter", "{n} not shown by the filter"),
    "activities.selected_not_shown": N_("{selected} ({not_shown})"),
    "activities.shown_of_all": N_("{shown} of {all}"),
    # the time zone picker (settings.js)
    "timezone.this_device": N_("{zone} (this device)"),
    "timezone.device_is_set": N_("This device is set to {zone}."),
    # passkeys (passkeys.js)
    "passkey.failed": N_("That passkey did not sign you in. Try again, or sign in another"
                         " way."),
    "passkey.too_many": N_("Too many failed logins; wait a while and try again."),
    "passkey.not_added": N_("The passkey was not added. Try again."),
    "passkey.known": N_("This device holds a passkey for your account already."),
    "passkey.name": N_("Give the passkey a name of 1-64 characters."),
    "passkey.password": N_("Your current password is not right (or, without one, log out and"
                           " sign in again first)."),
    "passkey.conflict": N_("Not added: this passkey is registered already, or your account"
                           " has as many as it may."),
    "passkey.signed_out": N_("Your session has ended: log in again."),
    "passkey.reload": N_("This page is too old: reload it and try again."),
    # a new version (offline.js)
    "update.ready": N_("A new version of k-mood is ready."),
    "update.reload": N_("Reload"),
    # the outbox (outbox_panel.js)
    "outbox.session_ended": N_("Your session has ended: log in again and they are sent."),
    "outbox.unreachable": N_("k-mood is not reachable; they are sent when it is."),
    "outbox.kept_here": N_("(kept here {when})"),
    "outbox.photos": n_("{n} photo", "{n} photos"),
    "outbox.refused": N_("Refused by the server: {reason}"),
    "outbox.refused_status": N_("The server refused this entry ({status})."),
    "outbox.saved_without_photos": N_("Saved without its photos: {reason}"),
    "outbox.edit": N_("Edit"),
    "outbox.discard": N_("Discard"),
    "outbox.dismiss": N_("Dismiss"),
    "outbox.waiting": n_("{n} entry is waiting on this device to be sent.",
                         "{n} entries are waiting on this device to be sent."),
    "outbox.nothing_waiting": N_("Nothing is waiting on this device to be sent."),
    # the service worker's page when it has no kept copy (sw.js)
    "sw.title": N_("No connection"),
    "sw.heading": N_("k-mood is not reachable"),
    "sw.no_log_copy": N_("This device has no copy of the log page yet: open it once while the"
                         " server is reachable, and logging works offline from then on."),
    "sw.needs_server": N_("This page needs the server, and this device cannot reach it just"
                          " now."),
    "sw.log": N_("Log"),
}

SERVICE_WORKER_PREFIX = "sw."
def said(i18n: Translator) -> dict:
    """What a page tells its scripts: the language's tags, the words, and the short weekday
    (Monday first) and month names a date is written with."""
    words = {key: i18n.plural_forms(*message) if isinstance(message, tuple)
             else i18n.gettext(message) for key, message in WORDS.items()}
    return {"lang": i18n.html_lang, "dir": i18n.direction,
            "locale": str(i18n.locale).replace("_", "-"), "words": words,
            "weekdays": [i18n.weekday_name(day, "abbreviated") for day in range(7)],
            "months": [i18n.month_name(month, "abbreviated") for month in range(1, 13)]}


@functools.lru_cache(maxsize=32)
def page_block(i18n: Translator) -> str:
    """said() as the text of a `<script type="application/json">`: no `<` in it, so nothing a
    catalogue holds can end the element or open a comment."""
    return json.dumps(said(i18n), ensure_ascii=False, separators=(",", ":")).replace(
        "<", "\\u003c")


def service_worker_english() -> dict:
    """The service worker's words until a page has handed it the person's (sw.js)."""
    return {"lang": "en", "dir": "ltr",
            "words": {key: message for key, message in WORDS.items()
                      if key.startswith(SERVICE_WORKER_PREFIX)}}
