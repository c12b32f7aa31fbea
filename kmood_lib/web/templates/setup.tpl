% rebase('layout.tpl', title=_('Set up k-mood'))
<h1>{{_('Welcome to k-mood')}}</h1>
<p>{{_('Create the first account. It will be the administrator of this server.')}}</p>
% if error:
<p class="error" role="alert">{{_(error)}}</p>
% end
% for message in get('errors', {}).values():
<p class="error" role="alert">{{!said_html(message)}}</p>
% end
<form method="post" action="/setup" class="card">
  <input type="hidden" name="csrf_token" value="{{form_token}}">
  <label>{{_('Username')}} <input name="username" autocomplete="username" required autofocus value="{{username}}" dir="auto"></label>
  <label>{{_('Password')}} {{n_('(at least {n} character)', '(at least {n} characters)', 8)}} <input name="password" type="password" autocomplete="new-password" required minlength="8"></label>
  <label>{{_('Time zone')}}
    <select name="timezone" id="timezone" data-current="{{timezone}}" data-prefer-device="1" translate="no">
      % for region, names in zones:
      <optgroup label="{{region}}">
        % for name in names:
        <option value="{{name}}"{{' selected' if name == timezone else ''}}>{{name.replace('_', ' ')}}</option>
        % end
      </optgroup>
      % end
    </select>
  </label>
  <p class="muted" id="timezone-hint">{{_('Entries are read in this zone; you can change it later.')}}</p>
  <button type="submit">{{_('Create account')}}</button>
</form>
