% rebase('layout.tpl', title=_('Reminders'))
% include('_settings_nav.tpl')
<p class="muted">{{!_html('A nudge to log, sent to your phone through <a href="https://ntfy.sh">ntfy</a> or Gotify, or to any webhook. Each one is sent at most once a day, on time — never late.')}}</p>
% if reminders:
<ul class="list reminders">
  % for r in reminders:
  % upcoming = local_next(r) if r['enabled'] else None
  <li>
    <span><strong>{{r['time']}}</strong> {{', '.join(weekdays[d] for d in r['weekdays']) if len(r['weekdays']) < 7 else _('every day')}} <span class="muted">· {{!_html('<span translate="no">{channel}</span> to <span translate="no">{destination}</span>', channel=channel_names.get(r['channel'], r['channel']), destination=destination(r))}} · <span translate="no">{{r['timezone'].replace('_', ' ')}}</span></span><br>
    <span class="muted">{{_('next: {when}', when=upcoming) if upcoming else _('off')}}</span></span>
    <span class="actions">
      <a href="/settings/reminders/{{r['id']}}">{{!_html('Edit<span class="skip"> the {time} reminder</span>', time=r['time'])}}</a>
      <form method="post" action="/settings/reminders/{{r['id']}}/switch">
        <input type="hidden" name="csrf_token" value="{{csrf_token}}">
        <input type="hidden" name="enabled" value="{{'0' if r['enabled'] else '1'}}">
        <button type="submit" class="link">{{!_html('Switch off<span class="skip"> the {time} reminder</span>', time=r['time']) if r['enabled'] else _html('Switch on<span class="skip"> the {time} reminder</span>', time=r['time'])}}</button>
      </form>
    </span>
  </li>
  % end
</ul>
% end
<h2>{{_('New reminder')}}</h2>
% include('_reminder_form.tpl', reminder=None, action='/settings/reminders', submit=_('Create reminder'))
% include('_deliveries.tpl')
