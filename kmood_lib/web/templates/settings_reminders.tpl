% rebase('layout.tpl', title='Reminders')
% include('_settings_nav.tpl')
<p class="muted">A nudge to log, sent to your phone through <a href="https://ntfy.sh">ntfy</a> or Gotify, or to any webhook. Each one is sent at most once a day, on time — never late.</p>
% if reminders:
<ul class="list reminders">
  % for r in reminders:
  <li>
    <span><strong>{{r['time']}}</strong> {{', '.join(weekdays[d] for d in r['weekdays']) if len(r['weekdays']) < 7 else 'every day'}} <span class="muted">· {{r['channel']}} to {{destination(r)}} · {{r['timezone'].replace('_', ' ')}}</span><br>
    <span class="muted">{{('next: ' + local_next(r)) if r['enabled'] else 'off'}}</span></span>
    <span class="actions">
      <a href="/settings/reminders/{{r['id']}}">Edit<span class="skip"> the {{r['time']}} reminder</span></a>
      <form method="post" action="/settings/reminders/{{r['id']}}/switch">
        <input type="hidden" name="csrf_token" value="{{csrf_token}}">
        <input type="hidden" name="enabled" value="{{'0' if r['enabled'] else '1'}}">
        <button type="submit" class="link">{{'Switch off' if r['enabled'] else 'Switch on'}}<span class="skip"> the {{r['time']}} reminder</span></button>
      </form>
    </span>
  </li>
  % end
</ul>
% end
<h2>New reminder</h2>
% include('_reminder_form.tpl', reminder=None, action='/settings/reminders', submit='Create reminder')
% include('_deliveries.tpl')
