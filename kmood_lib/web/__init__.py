"""The web face: the app and its plugins (app.py, plugins.py, routing.py), the JSON API (api/),
the pages (pages/, rendering.py, template_helpers.py, templates/, static/), and HTTP plumbing
(http.py, middleware.py, authentication.py, address_limit.py)."""
