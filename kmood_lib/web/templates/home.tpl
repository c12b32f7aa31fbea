% rebase('layout.tpl', title='Journal')
<h1>Hello, {{user.username}}</h1>
<p>Your journal lives at this server; the JSON API is described at <a href="/api/openapi.json">/api/openapi.json</a>.</p>
