% rebase('layout.tpl', title='API tokens')
% include('_settings_nav.tpl')
% if new_token:
<div class="card" role="status">
  <h2>Token “{{new_token['name']}}” created</h2>
  <p>Copy it now: it is shown only this once.</p>
  <p class="token" id="new-token">{{new_token['token']}}</p>
  <p class="muted">Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
</div>
% end
<p class="muted">Tokens let scripts and other apps use the JSON API as you. Revoke one you no longer use.</p>
<form method="post" action="/settings/tokens" class="card inline-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>Name <input name="name" value="{{fields.get('name', '')}}" maxlength="100" required placeholder="phone shortcut"></label>
  <button type="submit">Create token</button>
</form>
% if tokens:
<h2>Your tokens</h2>
<ul class="list">
% for token in tokens:
  <li>
    <form method="post" action="/settings/tokens/{{token['id']}}/revoke" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <span><strong>{{token['name']}}</strong> <span class="muted">created {{helpers.instant(token['created_at'])}}{{', last used ' + helpers.instant(token['last_used_at']) if token['last_used_at'] else ', never used'}}</span></span>
      <button type="submit" class="link">Revoke<span class="skip"> {{token['name']}}</span></button>
    </form>
  </li>
% end
</ul>
% end
