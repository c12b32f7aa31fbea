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
  <label>Time zone
    <select name="timezone" id="timezone" data-current="{{timezone}}" data-prefer-device="1">
      % for region, names in zones:
      <optgroup label="{{region}}">
        % for name in names:
        <option value="{{name}}"{{' selected' if name == timezone else ''}}>{{name.replace('_', ' ')}}</option>
        % end
      </optgroup>
      % end
    </select>
  </label>
  <p class="muted" id="timezone-hint">Entries are read in this zone; you can change it later.</p>
  <button type="submit">Create account</button>
</form>
