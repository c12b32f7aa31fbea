"""`/api/push`: Web Push for reminders (SPEC §16). The installation's public key for the
app to subscribe with, and the person's devices: add one (the browser's subscription), list,
remove, and send one a test."""

from __future__ import annotations

import bottle

from kmood_lib.reminders import delivery, push
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/push/key")
def public_key(services, conn, auth: Auth):
    """The VAPID public key (base64url, uncompressed P-256): the app's applicationServerKey."""
    key = services.push_keys.get(conn, services.clock.now_ms()).public_key
    return json_response({"public_key": key})


@routes.get("/api/push/subscriptions")
def list_devices(conn, auth: Auth):
    return json_response({"subscriptions": push.list_devices(conn, auth.user.id),
                          "next_cursor": None})


@routes.post("/api/push/subscriptions")
def subscribe(services, conn, auth: Auth):
    """The browser's PushSubscription (toJSON()) with a `label` for the person to tell the
    device by; the same endpoint again renews it."""
    checked = push.check_subscription(json_body(bottle.request, services.config),
                                      services.config.allow_private_notify_urls)
    return json_response(push.subscribe(conn, auth.user.id, checked, services.clock.now_ms()),
                         201)


@routes.delete("/api/push/subscriptions/<device_id:id>")
def remove_device(conn, auth: Auth, device_id: int):
    push.remove_device(conn, auth.user.id, device_id)
    return bottle.HTTPResponse(status=204)


@routes.post("/api/push/subscriptions/<device_id:id>/test")
def test_device(services, conn, auth: Auth, device_id: int):
    """One notification now to that device; the push service's answer is reported."""
    return json_response(delivery.push_device_test(conn, services, auth.user.id, device_id))
