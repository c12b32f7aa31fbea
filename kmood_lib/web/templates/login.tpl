% rebase('layout.tpl', title='Log in')
<h1>Log in</h1>
% if error:
<p class="error" role="alert">{{error}}</p>
% end
<form method="post" action="/login" class="card">
  <input type="hidden" name="csrf_token" value="{{form_token}}">
  <input type="hidden" name="next" value="{{next}}">
  <label>Username <input name="username" autocomplete="username" required autofocus value="{{username}}"></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Log in</button>
</form>
