% rebase('layout.tpl', title=_('Reminders'))
% include('_settings_nav.tpl')
<p class="muted">{{!_html('A nudge to log, sent to this app on your phone with Web Push, through <a href="https://ntfy.sh">ntfy</a> or Gotify, or to any webhook. Each one is sent at most once a day, on time — never late.')}}</p>
% if reminders:
<ul class="list reminders">
  % for r in reminders:
  % upcoming = local_next(r) if r['enabled'] else None
  <li>
    <span><strong>{{r['time']}}</strong> {{', '.join(weekdays[d] for d in r['weekdays']) if len(r['weekdays']) < 7 else _('every day')}} <span class="muted">· {{!_html('<span translate="no">{channel}</span> to <span translate="no">{destination}</span>', channel=channel_names.get(r['channel'], r['channel']), destination=destination(r)) if destination(r) else _html('<span translate="no">{channel}</span> to your devices', channel=channel_names.get(r['channel'], r['channel']))}} · <span translate="no">{{r['timezone'].replace('_', ' ')}}</span></span><br>
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
<section class="card devices" id="devices" aria-labelledby="devices-title">
<h2 id="devices-title">{{_('Notifications on this phone or computer')}}</h2>
<p class="muted">{{_('Reminders sent with Web Push appear on each device listed here, from k-mood itself: no other app needed. The push service of the browser (Google, Mozilla, Apple) carries them encrypted; it sees when they arrive, not what they say.')}}</p>
% tested_device, tested = device_tested
% if devices:
<ul class="list device-list">
  % for d in devices:
  <li>
    <span><strong dir="auto">{{d['label']}}</strong> <span class="muted">· <span translate="no">{{d['push_service']}}</span></span><br>
    <span class="muted">{{_('added {day}', day=i18n.day(d['created_at'][:10]))}}{{' · ' + _('last reached {day}', day=i18n.day(d['last_success_at'][:10])) if d['last_success_at'] else ''}}</span>
    % if d['last_error']:
    <br><span class="error" dir="auto">{{_('Last try failed: {error}', error=d['last_error'])}}</span>
    % end
    % if tested and tested_device == str(d['id']):
      % if tested.startswith('ok'):
    <br><span class="ok-said" role="status" id="device-tested">{{!_html('Test sent: the push service answered <span translate="no">HTTP {status}</span>.', status=tested[3:])}}</span>
      % else:
    <br><span class="error" role="status" id="device-tested">{{_('The test could not be sent.')}}</span>
      % end
    % end
    </span>
    <span class="actions">
      <form method="post" action="/settings/reminders/devices/{{d['id']}}/test">
        <input type="hidden" name="csrf_token" value="{{csrf_token}}">
        <button type="submit" class="link">{{!_html('Send a test<span class="skip"> to {device}</span>', device=d['label'])}}</button>
      </form>
      <form method="post" action="/settings/reminders/devices/{{d['id']}}/delete">
        <input type="hidden" name="csrf_token" value="{{csrf_token}}">
        <button type="submit" class="link">{{!_html('Remove<span class="skip"> {device}</span>', device=d['label'])}}</button>
      </form>
    </span>
  </li>
  % end
</ul>
% end
<div id="push-here" class="push-here" data-csrf="{{csrf_token}}" data-denied="{{_('Notifications are blocked for k-mood in this browser: allow them in its site settings, then try again.')}}" data-failed="{{_('This device could not be added:')}}" data-added="{{_('Added: this device gets the reminders sent with Web Push.')}}">
  <button type="button" id="push-subscribe" class="secondary" hidden>{{_('Notify this device')}}</button>
  <p id="push-said" role="status" class="muted"></p>
  <p class="muted" id="push-unsupported">{{_('To get reminders here, open k-mood in a browser that shows notifications (on an iPhone or iPad: add k-mood to the Home Screen first, then open it from there), and choose Notify this device.')}}</p>
</div>
</section>
<h2>{{_('New reminder')}}</h2>
% include('_reminder_form.tpl', reminder=None, action='/settings/reminders', submit=_('Create reminder'))
% include('_deliveries.tpl')
