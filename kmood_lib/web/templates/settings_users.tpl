% rebase('layout.tpl', title='Household')
% include('_settings_nav.tpl')
<p class="muted">Everyone here has their own private journal; no one sees another's entries.</p>
<form method="post" action="/settings/users" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <h2>Add a member</h2>
  <div class="row">
    <label>User name <input name="username" value="{{fields.get('username', '')}}" maxlength="64" autocomplete="off" required></label>
    <label>Password <span class="muted">(8+ characters)</span> <input type="password" name="password" autocomplete="new-password" minlength="8" required></label>
  </div>
  <label class="inline"><input type="checkbox" name="admin" value="1"{{' checked' if fields.get('admin') else ''}}> Admin (may manage members and the job queue)</label>
  <div class="actions"><button type="submit">Add member</button></div>
</form>
<h2>Members</h2>
<ul class="list">
% for person in people:
  <li>
    <p><strong>{{person['username']}}</strong>{{' · admin' if person['is_admin'] else ''}}{{' · you' if person['id'] == user.id else ''}} <span class="muted">· {{person['entries']}} entries · {{person['timezone']}}</span></p>
    % if person['id'] != user.id:
    <form method="post" action="/settings/users/{{person['id']}}/password" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>New password for {{person['username']}} <input type="password" name="password" autocomplete="new-password" minlength="8" required></label>
      <button type="submit" class="secondary">Reset password</button>
    </form>
    <p class="muted">Resetting logs {{person['username']}} out everywhere. · <a href="/settings/users/{{person['id']}}/delete">Delete account<span class="skip"> {{person['username']}}</span></a></p>
    % end
  </li>
% end
</ul>
