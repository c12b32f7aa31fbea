% rebase('layout.tpl', title=_('Log'))
% if get('starter_set'):
% include('_starter.tpl')
% end
<p class="notice js-only" id="outbox-notice" role="status" hidden>{{_('Saved on this device: k-mood could not take it just now. It is sent as soon as it can be.')}}</p>
<p class="notice js-only" id="outbox-sent" role="status" hidden>{{_('Entries saved on this device have been sent.')}}</p>
<p class="notice js-only" id="outbox-deleted" role="status" hidden>{{_('An entry waiting on this device had been deleted since it was first saved (on another device, perhaps), so it was not sent again.')}}</p>
% include('_entry_form.tpl', action='/entries', creating=True, heading=_('Log a mood'), submit=_('Save entry'), entry=None)
<section id="outbox" class="js-only outbox" aria-labelledby="outbox-title" hidden>
  % # Translators: the script fills in the number of entries waiting on this device.
  <h2 id="outbox-title">{{!_html('Waiting to sync (<span id="outbox-count">{count}</span>)', count=i18n.number(0))}}</h2>
  <p class="muted" id="outbox-status" role="status"></p>
  <p id="outbox-login" hidden><a class="button" href="/login?next=/">{{_('Log in to send them')}}</a></p>
  <ul class="entries" id="outbox-items"></ul>
</section>
<h2>{{_('Today')}}</h2>
<p class="streak">
% if streak and longest > streak:
  {{!n_('<strong>{streak}-day streak</strong> — your longest is {n} day.', '<strong>{streak}-day streak</strong> — your longest is {n} days.', longest, streak=i18n.number(streak))}}
% elif streak:
  {{!n_('<strong>{n}-day streak</strong> — your longest yet.', '<strong>{n}-day streak</strong> — your longest yet.', streak)}}
% else:
  {{_('No streak yet: log today to start one.')}}
% end
</p>
% if todays:
<ul class="entries">
  % for entry in todays:
  % include('_entry.tpl', entry=entry, show_time=True)
  % end
</ul>
% else:
<p class="muted">{{_('Nothing logged today yet.')}}</p>
% end
<h2 id="goals">{{_('Goals')}}</h2>
% if goals:
<ul class="goals">
  % for goal in goals:
  % include('_goal.tpl', goal=goal, back='/')
  % end
</ul>
<p><a href="/goals">{{_('All goals')}}</a></p>
% else:
<p class="muted">{{!_html('No goals yet. <a href="/goals">Set one</a>: “walk 3 days a week”, “call mum once a month”.')}}</p>
% end
