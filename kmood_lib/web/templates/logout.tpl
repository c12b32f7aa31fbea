% rebase('layout.tpl', title='Log out')
<h1>Log out</h1>
<form method="post" action="/logout" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <button type="submit">Log out of this browser</button>
</form>
