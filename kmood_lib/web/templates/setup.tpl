% rebase('layout.tpl', title='Set up k-mood')
<h1>Welcome to k-mood</h1>
<p>Create the first account. It will be the administrator of this server.</p>
% if error:
<p class="error" role="alert">{{error}}</p>
% end
<form method="post" action="/setup" class="card">
  <input type="hidden" name="csrf_token" value="{{form_token}}">
  <label>Username <input name="username" autocomplete="username" required autofocus value="{{username}}"></label>
  <label>Password (at least 8 characters) <input name="password" type="password" autocomplete="new-password" required minlength="8"></label>
  <label>Time zone <input name="timezone" value="{{timezone}}" required></label>
  <button type="submit">Create account</button>
</form>
