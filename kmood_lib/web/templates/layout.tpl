<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} · k-mood</title>
<link rel="stylesheet" href="/static/style.css">
</head>
<body>
<header class="top">
  <a class="brand" href="/">k-mood</a>
  % if get('user'):
  <nav>
    <span class="who">{{user.username}}</span>
    <a href="/logout">Log out</a>
  </nav>
  % end
</header>
<main>
{{!base}}
</main>
</body>
</html>
