"""Sending a reminder through its channel (SPEC §8): ntfy's JSON publish to the server root,
Gotify's `POST /message`, or a plain webhook. Unless private destinations are allowed, each
request goes only to a vetted public address, resolved once (so DNS rebinding cannot reach a
private one). No retries here: the queue retries."""

from __future__ import annotations

import json
import time
import urllib.parse
from dataclasses import dataclass

from kmood_lib.upstream.http import UpstreamError, exchange

EXCERPT = 200
DEFAULT_TITLE = "k-mood"
DEFAULT_MESSAGE = "How are you feeling? Take a moment to log your mood."


@dataclass(frozen=True)
class Sent:
    status: int
    excerpt: str  # the start of the upstream's answer, for the user to see


def split_ntfy(url: str) -> tuple[str, str]:
    """A topic URL as the ntfy app shows it -> (server, topic): the topic is the last path
    segment, everything before it the server (ntfy may be served under a sub-path)."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    head, _, topic = path.rpartition("/")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, head, "", "")), topic


class Notifier:
    def __init__(self, user_agent: str, allow_private: bool, public_url: str = ""):
        self.user_agent = user_agent
        self.allow_private = allow_private
        self.public_url = public_url.rstrip("/")

    def send(self, channel: str, url: str, token: str | None, title: str | None,
             message: str | None, *, reminder_id: int, local_date: str | None,
             timeout_s: float) -> Sent:
        """One message; raises UpstreamError (transport, refused address, or any answer that
        is not 2xx)."""
        title, message = title or DEFAULT_TITLE, message or DEFAULT_MESSAGE
        headers: dict[str, str] = {}
        if channel == "ntfy":
            server, topic = split_ntfy(url)
            target = server + "/"
            body = {"topic": topic, "title": title, "message": message, "tags": ["memo"]}
            if self.public_url:
                body["click"] = self.public_url + "/"
            if token:
                headers["Authorization"] = f"Bearer {token}"
        elif channel == "gotify":
            target = url.rstrip("/") + "/message"
            body = {"title": title, "message": message, "priority": 5}
            if token:
                headers["X-Gotify-Key"] = token
        elif channel == "webhook":
            target = url
            body = {"title": title, "message": message, "reminder_id": reminder_id,
                    "local_date": local_date}
            if token:
                headers["Authorization"] = f"Bearer {token}"
        else:
            raise UpstreamError(f"unknown channel {channel!r}")
        answer = exchange("POST", target, user_agent=self.user_agent,
                          deadline=time.monotonic() + timeout_s,
                          headers={**headers, "Content-Type": "application/json",
                                   "Accept": "application/json"},
                          payload=json.dumps(body).encode("utf-8"),
                          max_bytes=64 * 1024, public_only=not self.allow_private)
        excerpt = answer.body[:EXCERPT].decode("utf-8", "replace")
        if not 200 <= answer.status < 300:
            raise UpstreamError(f"{channel} answered HTTP {answer.status}: {excerpt}",
                                answer.status)
        return Sent(answer.status, excerpt)
