"""The web face: the app and its plugins (app.py, plugins.py, routing.py), the JSON API (api/),
the pages (pages/, views.py, templates/, static/), and HTTP plumbing (http.py, auth.py)."""
