% rebase('layout.tpl', title=_('Settings'))
% include('_settings_nav.tpl')
<form method="post" action="/settings/profile" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <h2>{{_('Profile')}}</h2>
  % if me['is_admin']:
  <p class="muted">{{!_html('Signed in as <strong dir="auto">{name}</strong> (admin).', name=me['username'])}}</p>
  % else:
  <p class="muted">{{!_html('Signed in as <strong dir="auto">{name}</strong>.', name=me['username'])}}</p>
  % end
  % language = fields.get('language', me['language'] or '')
  <label>{{_('Language')}}
    <select name="language">
      <option value=""{{' selected' if not language else ''}}>{{_("Browser's choice")}}</option>
      % for code, name in languages:
      <option value="{{code}}" lang="{{code.replace('_', '-')}}"{{' selected' if code == language else ''}}>{{name}}</option>
      % end
    </select>
  </label>
  % chosen = fields.get('timezone', me['timezone'])
  <label>{{_('Time zone')}}
    <select name="timezone" id="timezone" data-current="{{chosen}}" translate="no">
      % if not any(chosen in zones_ for _, zones_ in zones):
      <option value="{{chosen}}" selected>{{chosen}}</option>
      % end
      % for region, names in zones:
      <optgroup label="{{region}}">
        % for name in names:
        <option value="{{name}}"{{' selected' if name == chosen else ''}}>{{name.replace('_', ' ')}}</option>
        % end
      </optgroup>
      % end
    </select>
  </label>
  <p class="muted" id="timezone-hint">{{_('Entries without an explicit offset are read in this zone; each entry keeps the offset it was logged with.')}}</p>
  % if me['email']:
  <p class="muted">{{!_html('Your email address is <bdi dir="ltr">{email}</bdi> (an admin sets it in Household). k-mood sends no email.', email=me['email'])}}</p>
  % end
  <h2>{{_('Integrations')}}</h2>
  <p class="muted">{{_('Used to suggest the song you are listening to while you log.')}}</p>
  <label>{{_('ListenBrainz user name')}} <input name="listenbrainz_user" value="{{fields.get('listenbrainz_user', me['listenbrainz_user'] or '')}}" autocomplete="off" dir="auto"></label>
  <label>{{_('Last.fm user name')}} <input name="lastfm_user" value="{{fields.get('lastfm_user', me['lastfm_user'] or '')}}" autocomplete="off" dir="auto"></label>
  <div class="actions"><button type="submit">{{_('Save profile')}}</button></div>
</form>
% if password_login:
<h2 id="password">{{_('Password')}}</h2>
% if ways['password']:
<form method="post" action="/settings/password" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="text" name="username" value="{{me['username']}}" autocomplete="username" hidden>
  <label>{{_('Current password')}} <input type="password" name="old_password" autocomplete="current-password" required></label>
  <label>{{_('New password')}} <span class="muted">{{n_('(at least {n} character)', '(at least {n} characters)', 8)}}</span> <input type="password" name="new_password" autocomplete="new-password" minlength="8" required></label>
  <label>{{_('New password again')}} <input type="password" name="repeat_password" autocomplete="new-password" minlength="8" required></label>
  <label class="inline"><input type="checkbox" name="revoke_api_tokens" value="1" checked> {{_('Also revoke my API tokens (apps that use them must be given a new one)')}}</label>
  <p class="muted">{{_('Changing it logs out your other browsers and devices.')}}</p>
  <div class="actions"><button type="submit">{{_('Change password')}}</button></div>
</form>
% if ways['passkeys'] or ways['identities']:
<form method="post" action="/settings/password/off" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <p class="muted">{{_('You can sign in without your password: with a passkey or single sign-on. Turned off, nobody can sign in to this account with a password; you can set one again here.')}}</p>
  <label>{{_('Current password')}} <input type="password" name="password" autocomplete="current-password" required></label>
  <div class="actions"><button type="submit" class="secondary">{{_('Turn my password off')}}</button></div>
</form>
% end
% else:
<form method="post" action="/settings/password" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="text" name="username" value="{{me['username']}}" autocomplete="username" hidden>
  <p class="muted">{{_('Your account has no password: you sign in with a passkey or single sign-on. Set one to sign in with it too.')}}</p>
  <label>{{_('New password')}} <span class="muted">{{n_('(at least {n} character)', '(at least {n} characters)', 8)}}</span> <input type="password" name="new_password" autocomplete="new-password" minlength="8" required></label>
  <label>{{_('New password again')}} <input type="password" name="repeat_password" autocomplete="new-password" minlength="8" required></label>
  <input type="hidden" name="revoke_api_tokens" value="0">
  <div class="actions"><button type="submit">{{_('Set a password')}}</button></div>
</form>
% end
% end
% if passkeys_on:
<h2 id="passkeys">{{_('Passkeys')}}</h2>
<div class="card">
  % if passkeys:
  <ul class="list passkeys">
    % for key in passkeys:
    <li>
      <form method="post" action="/settings/passkeys/{{key['id']}}/delete" class="actions">
        <input type="hidden" name="csrf_token" value="{{csrf_token}}">
        <span><strong dir="auto">{{key['name']}}</strong> <span class="muted">{{_('created {day}, last used {last}', day=i18n.day(helpers.utc_day(key['created_at'])), last=i18n.day(helpers.utc_day(key['last_used_at']))) if key['last_used_at'] else _('created {day}, never used', day=i18n.day(helpers.utc_day(key['created_at'])))}}</span></span>
        <button type="submit" class="link">{{_('Remove')}}<span class="skip" dir="auto"> {{key['name']}}</span></button>
      </form>
    </li>
    % end
  </ul>
  % else:
  <p class="muted">{{_('A passkey signs you in with your phone’s or computer’s screen lock (or a security key) instead of a password, and cannot be phished.')}}</p>
  % end
  % if not ways['password'] and not fresh:
  <p class="muted">{{_('To add a passkey to an account without a password, sign in again first: within ten minutes of it.')}}
  % if sign_in_again:
  <a href="{{sign_in_again}}">{{!_html('Sign in again with <bdi dir="auto">{provider}</bdi>', provider=single_sign_on)}}</a>
  % end
  </p>
  % else:
  <form id="passkey-add" class="passkey-add" data-csrf="{{csrf_token}}" hidden>
    <label>{{_('Name of the new passkey')}} <input name="name" maxlength="64" required autocomplete="off" dir="auto" placeholder="{{_('e.g. my phone')}}"></label>
    % if ways['password']:
    <label>{{_('Current password')}} <input type="password" name="password" autocomplete="current-password" required></label>
    % end
    <div class="actions"><button type="submit" class="secondary">{{_('Add a passkey')}}</button></div>
    <p class="error" role="alert" id="passkey-add-error" hidden></p>
  </form>
  <p class="muted js-unsupported" id="passkeys-unsupported">{{_('This browser cannot make passkeys here (it needs JavaScript and a secure connection).')}}</p>
  % end
</div>
% end
% if single_sign_on:
<h2 id="single-sign-on">{{_('Single sign-on')}}</h2>
% if sso_subject:
<div class="card">
  <p>{{!_html('You can sign in here with <bdi dir="auto">{provider}</bdi>: your account there is linked to this one.', provider=single_sign_on)}}</p>
</div>
% else:
<form method="post" action="/login/oidc/link" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <p class="muted">{{!_html('Link your account at <bdi dir="auto">{provider}</bdi> to this one, to sign in with it from now on. You sign in there once to prove it is yours.', provider=single_sign_on)}}</p>
  % if ways['password']:
  <label>{{_('Current password')}} <input type="password" name="password" autocomplete="current-password" required></label>
  % end
  <div class="actions"><button type="submit" class="secondary"><span>{{!_html('Link <bdi dir="auto">{provider}</bdi>', provider=single_sign_on)}}</span></button></div>
</form>
% end
% end
<h2 id="storage">{{_('Storage')}}</h2>
<div class="card">
  % if storage['quota_bytes']:
  % share = min(100, round(100 * storage['used_bytes'] / storage['quota_bytes']))
  <p>{{!_html('Your photos and voice memos use <strong>{used}</strong> of {quota}; <strong>{left}</strong> left.', used=i18n.file_size(storage['used_bytes']), quota=i18n.file_size(storage['quota_bytes']), left=i18n.file_size(storage['left_bytes']))}}</p>
  <meter min="0" max="100" value="{{share}}" low="80" high="95" optimum="0" aria-label="{{_('Storage used: {share} per cent', share=i18n.number(share))}}">{{i18n.number(share)}}%</meter>
  % else:
  <p>{{!_html('Your photos and voice memos use <strong>{used}</strong>. This server sets no storage quota.', used=i18n.file_size(storage['used_bytes']))}}</p>
  % end
  <p class="muted">{{_('A photo on several entries is stored once.')}}</p>
</div>
<h2>{{_('This browser')}}</h2>
<form method="post" action="/logout" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <button type="submit" class="secondary">{{_('Log out')}}</button>
</form>
