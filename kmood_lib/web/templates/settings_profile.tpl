% rebase('layout.tpl', title='Settings')
% include('_settings_nav.tpl')
<form method="post" action="/settings/profile" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <h2>Profile</h2>
  <p class="muted">Signed in as <strong>{{me['username']}}</strong>{{' (admin)' if me['is_admin'] else ''}}.</p>
  % chosen = fields.get('timezone', me['timezone'])
  <label>Time zone
    <select name="timezone" id="timezone" data-current="{{chosen}}">
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
  <p class="muted" id="timezone-hint">Entries without an explicit offset are read in this zone; each entry keeps the offset it was logged with.</p>
  <h2>Integrations</h2>
  <p class="muted">Used to suggest the song you are listening to while you log.</p>
  <label>ListenBrainz user name <input name="listenbrainz_user" value="{{fields.get('listenbrainz_user', me['listenbrainz_user'] or '')}}" autocomplete="off"></label>
  <label>Last.fm user name <input name="lastfm_user" value="{{fields.get('lastfm_user', me['lastfm_user'] or '')}}" autocomplete="off"></label>
  <div class="actions"><button type="submit">Save profile</button></div>
</form>
<h2>Password</h2>
<form method="post" action="/settings/password" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="text" name="username" value="{{me['username']}}" autocomplete="username" hidden>
  <label>Current password <input type="password" name="old_password" autocomplete="current-password" required></label>
  <label>New password <span class="muted">(at least 8 characters)</span> <input type="password" name="new_password" autocomplete="new-password" minlength="8" required></label>
  <label>New password again <input type="password" name="repeat_password" autocomplete="new-password" minlength="8" required></label>
  <label class="inline"><input type="checkbox" name="revoke_api_tokens" value="1" checked> Also revoke my API tokens (apps that use them must be given a new one)</label>
  <p class="muted">Changing it logs out your other browsers and devices.</p>
  <div class="actions"><button type="submit">Change password</button></div>
</form>
<h2 id="storage">Storage</h2>
<div class="card">
  % if storage['quota_bytes']:
  % share = min(100, round(100 * storage['used_bytes'] / storage['quota_bytes']))
  <p>Your photos and voice memos use <strong>{{megabytes(storage['used_bytes'])}}</strong> of {{megabytes(storage['quota_bytes'])}}; <strong>{{megabytes(storage['left_bytes'])}}</strong> left.</p>
  <meter min="0" max="100" value="{{share}}" low="80" high="95" optimum="0" aria-label="Storage used: {{share}} per cent">{{share}}%</meter>
  % else:
  <p>Your photos and voice memos use <strong>{{megabytes(storage['used_bytes'])}}</strong>. This server sets no storage quota.</p>
  % end
  <p class="muted">A photo on several entries is stored once.</p>
</div>
<h2>This browser</h2>
<form method="post" action="/logout" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <button type="submit" class="secondary">Log out</button>
</form>
