% r = reminder or {}
% v = lambda name, default='': fields.get(name, default) if fields else default
% chosen_days = [int(d) for d in fields.getall('weekday')] if fields else r.get('weekdays', [0, 1, 2, 3, 4, 5, 6])
% zone = v('timezone', r.get('timezone', default_zone))
<form method="post" action="{{action}}" class="card reminder-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <div class="two-up">
    <label>Time <input type="time" name="time" value="{{v('time', r.get('time', '20:30'))}}" required></label>
    <label>Time zone
      <select name="timezone">
        % for group, names in zones:
        <optgroup label="{{group}}">
          % for name in names:
          <option value="{{name}}"{{' selected' if name == zone else ''}}>{{name.replace('_', ' ')}}</option>
          % end
        </optgroup>
        % end
      </select>
    </label>
  </div>
  <fieldset class="weekdays">
    <legend>On</legend>
    % for i, day in enumerate(weekdays):
    <label class="chip"><input type="checkbox" name="weekday" value="{{i}}"{{' checked' if i in chosen_days else ''}}> {{day}}</label>
    % end
  </fieldset>
  <label>Send with
    <select name="channel">
      % for key, name in (('ntfy', 'ntfy'), ('gotify', 'Gotify'), ('webhook', 'Webhook')):
      <option value="{{key}}"{{' selected' if v('channel', r.get('channel', 'ntfy')) == key else ''}}>{{name}}</option>
      % end
    </select>
  </label>
  <label>Address <span class="muted">(ntfy: the topic URL your app shows, such as https://ntfy.sh/my-topic; Gotify: the server URL; webhook: the URL to POST to)</span>
    <input type="url" name="url" value="{{v('url', r.get('url', ''))}}" required placeholder="https://ntfy.sh/my-topic" autocomplete="off">
  </label>
  <label>Token <span class="muted">({{'one is set; leave empty to keep it' if r.get('has_token') else 'optional; Gotify needs its app token'}})</span>
    <input type="password" name="token" value="" autocomplete="off">
  </label>
  % if r.get('has_token'):
  <label class="inline"><input type="checkbox" name="remove_token" value="1"> Remove the token</label>
  % end
  <div class="two-up">
    <label>Title <span class="muted">(optional)</span> <input name="title" value="{{v('title', r.get('title') or '')}}" maxlength="100" placeholder="k-mood"></label>
    <label>Message <span class="muted">(optional)</span> <input name="message" value="{{v('message', r.get('message') or '')}}" maxlength="500" placeholder="How are you feeling?"></label>
  </div>
  <label class="inline"><input type="checkbox" name="skip_if_logged" value="1"{{' checked' if (v('skip_if_logged') == '1' if fields else r.get('skip_if_logged', True)) else ''}}> Skip when I have already logged that day</label>
  <label class="inline"><input type="checkbox" name="enabled" value="1"{{' checked' if (v('enabled') == '1' if fields else r.get('enabled', True)) else ''}}> On</label>
  <div class="actions"><button type="submit">{{submit}}</button></div>
</form>
