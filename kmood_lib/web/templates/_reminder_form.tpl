% r = reminder or {}
% v = lambda name, default='': fields.get(name, default) if fields else default
% chosen_days = [int(d) for d in fields.getall('weekday')] if fields else r.get('weekdays', [0, 1, 2, 3, 4, 5, 6])
% zone = v('timezone', r.get('timezone', default_zone))
<form method="post" action="{{action}}" class="card reminder-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <div class="two-up">
    <label>{{_('Time')}} <input type="time" name="time" value="{{v('time', r.get('time', '20:30'))}}" required></label>
    <label>{{_('Time zone')}}
      <select name="timezone" translate="no">
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
    <legend>{{_('Days')}}</legend>
    % for i in i18n.week_order():
    <label class="chip"><input type="checkbox" name="weekday" value="{{i}}"{{' checked' if i in chosen_days else ''}}> {{weekdays[i]}}</label>
    % end
  </fieldset>
  <label>{{_('Send with')}}
    <select name="channel" translate="no">
      % for key, name in channel_names.items():
      <option value="{{key}}"{{' selected' if v('channel', r.get('channel', 'ntfy')) == key else ''}}>{{name}}</option>
      % end
    </select>
  </label>
  <label>{{_('Address')}} <span class="muted">{{_('(ntfy: the topic URL your app shows, such as https://ntfy.sh/my-topic; Gotify: the server URL; webhook: the URL to POST to; Web Push: none, it goes to your devices)')}}</span>
    <input type="url" name="url" value="{{v('url', r.get('url', ''))}}" placeholder="https://ntfy.sh/my-topic" autocomplete="off" translate="no">
  </label>
  <label>{{_('Token')}} <span class="muted">{{_('(one is set; leave empty to keep it)') if r.get('has_token') else _('(optional; Gotify needs its app token)')}}</span>
    <input type="password" name="token" value="" autocomplete="off">
  </label>
  % if r.get('has_token'):
  <label class="inline"><input type="checkbox" name="remove_token" value="1"> {{_('Remove the token')}}</label>
  % end
  <div class="two-up">
    <label>{{_('Title')}} <span class="muted">{{_('(optional)')}}</span> <input name="title" value="{{v('title', r.get('title') or '')}}" maxlength="100" placeholder="k-mood" dir="auto"></label>
    <label>{{_('Message')}} <span class="muted">{{_('(optional)')}}</span> <input name="message" value="{{v('message', r.get('message') or '')}}" maxlength="500" placeholder="{{_('How are you feeling?')}}" dir="auto"></label>
  </div>
  <label class="inline"><input type="checkbox" name="skip_if_logged" value="1"{{' checked' if (v('skip_if_logged') == '1' if fields else r.get('skip_if_logged', True)) else ''}}> {{_('Skip when I have already logged that day')}}</label>
  <label class="inline"><input type="checkbox" name="enabled" value="1"{{' checked' if (v('enabled') == '1' if fields else r.get('enabled', True)) else ''}}> {{_('On')}}</label>
  <div class="actions"><button type="submit">{{submit}}</button></div>
</form>
