% rebase('layout.tpl', title='Log')
% if get('starter_set'):
% include('_starter.tpl')
% end
<p class="notice js-only" id="outbox-notice" role="status" hidden>Saved on this device: k-mood could not take it just now. It is sent as soon as it can be.</p>
<p class="notice js-only" id="outbox-sent" role="status" hidden>Entries saved on this device have been sent.</p>
<p class="notice js-only" id="outbox-deleted" role="status" hidden>An entry waiting on this device had been deleted since it was first saved (on another device, perhaps), so it was not sent again.</p>
% include('_entry_form.tpl', action='/entries', creating=True, heading='Log a mood', submit='Save entry', entry=None)
<section id="outbox" class="js-only outbox" aria-labelledby="outbox-title" hidden>
  <h2 id="outbox-title">Waiting to sync (<span id="outbox-count">0</span>)</h2>
  <p class="muted" id="outbox-status" role="status"></p>
  <p id="outbox-login" hidden><a class="button" href="/login?next=/">Log in to send them</a></p>
  <ul class="entries" id="outbox-items"></ul>
</section>
<h2>Today</h2>
<p class="streak">
% if streak:
  <strong>{{streak}}-day streak</strong>{{' — your longest is %d days' % longest if longest > streak else ' — your longest yet'}}.
% else:
  No streak yet: log today to start one.
% end
</p>
% if todays:
<ul class="entries">
  % for entry in todays:
  % include('_entry.tpl', entry=entry, show_time=True)
  % end
</ul>
% else:
<p class="muted">Nothing logged today yet.</p>
% end
<h2 id="goals">Goals</h2>
% if goals:
<ul class="goals">
  % for goal in goals:
  % include('_goal.tpl', goal=goal, back='/')
  % end
</ul>
<p><a href="/goals">All goals</a></p>
% else:
<p class="muted">No goals yet. <a href="/goals">Set one</a>: “walk 3 days a week”, “call mum once a month”.</p>
% end
