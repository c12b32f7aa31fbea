"""The HTML pages, rendered on the server from the same domain functions as the JSON API."""
