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
  % if link_by_email or me['email']:
  <label>{{_('Email address')}} <input name="email" type="email" value="{{fields.get('email', me['email'] or '')}}" autocomplete="email" maxlength="254" dir="ltr"></label>
  <p class="muted">{{!_html('A first sign-in with <bdi dir="auto">{provider}</bdi> links this account when the provider has verified this same address. k-mood sends no email.', provider=single_sign_on) if single_sign_on and link_by_email else _('k-mood sends no email.')}}</p>
  % end
  <h2>{{_('Integrations')}}</h2>
  <p class="muted">{{_('Used to suggest the song you are listening to while you log.')}}</p>
  <label>{{_('ListenBrainz user name')}} <input name="listenbrainz_user" value="{{fields.get('listenbrainz_user', me['listenbrainz_user'] or '')}}" autocomplete="off" dir="auto"></label>
  <label>{{_('Last.fm user name')}} <input name="lastfm_user" value="{{fields.get('lastfm_user', me['lastfm_user'] or '')}}" autocomplete="off" dir="auto"></label>
  <div class="actions"><button type="submit">{{_('Save profile')}}</button></div>
</form>
% if password_login:
<h2>{{_('Password')}}</h2>
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
