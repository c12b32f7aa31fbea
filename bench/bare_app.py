"""The baseline: a bare Bottle endpoint on waitress that touches no database."""

import sys

import bottle
import waitress

app = bottle.Bottle()


@app.route("/bare", method=["GET", "POST"])
def bare():
    bottle.response.content_type = "application/json"
    return '{"ok": true}'


if __name__ == "__main__":
    waitress.serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=int(sys.argv[2]),
                   _quiet=True)
