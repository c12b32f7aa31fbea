% rebase('layout.tpl', title='Reminder')
% include('_settings_nav.tpl')
% if tested:
  % ok = tested.startswith('ok')
<p class="{{'notice' if ok else 'errors'}}" role="status" id="test-result">{{'Test sent: the channel answered HTTP ' + tested[3:] + '.' if ok else 'The test could not be sent' + (' (the channel answered HTTP ' + tested[7:] + ')' if len(tested) > 6 else '') + '. Check the address and the token.'}}</p>
% end
<h2>Reminder at {{reminder['time']}}</h2>
<p class="muted">{{('Next: ' + local_next(reminder)) if reminder['enabled'] else 'Switched off.'}}</p>
<form method="post" action="/settings/reminders/{{reminder['id']}}/test" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <button type="submit" class="secondary">Send a test now</button>
  <a href="/settings/reminders/{{reminder['id']}}/delete">Delete this reminder</a>
</form>
% include('_reminder_form.tpl', reminder=reminder, action='/settings/reminders/%d' % reminder['id'], submit='Save reminder', default_zone=reminder['timezone'])
% include('_deliveries.tpl')
