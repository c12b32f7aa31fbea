% rebase('layout.tpl', title=_('Reminder'))
% include('_settings_nav.tpl')
% if tested:
  % ok = tested.startswith('ok')
  % answered = tested[3:] if ok else tested[7:]
  % if ok:
<p class="notice" role="status" id="test-result">{{!_html('Test sent: the channel answered <span translate="no">HTTP {status}</span>.', status=answered)}}</p>
  % elif len(tested) > 6:
<p class="errors" role="status" id="test-result">{{!_html('The test could not be sent (the channel answered <span translate="no">HTTP {status}</span>). Check the address and the token.', status=answered)}}</p>
  % else:
<p class="errors" role="status" id="test-result">{{_('The test could not be sent. Check the address and the token.')}}</p>
  % end
% end
<h2>{{_('Reminder at {time}', time=reminder['time'])}}</h2>
% upcoming = local_next(reminder) if reminder['enabled'] else None
<p class="muted">{{_('Next: {when}', when=upcoming) if upcoming else _('Switched off.')}}</p>
<form method="post" action="/settings/reminders/{{reminder['id']}}/test" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <button type="submit" class="secondary">{{_('Send a test now')}}</button>
  <a href="/settings/reminders/{{reminder['id']}}/delete">{{_('Delete this reminder')}}</a>
</form>
% include('_reminder_form.tpl', reminder=reminder, action='/settings/reminders/%d' % reminder['id'], submit=_('Save reminder'), default_zone=reminder['timezone'])
% include('_deliveries.tpl')
