% rebase('layout.tpl', title='Log')
<h1>Log a mood</h1>
% include('_entry_form.tpl', action='/entries', creating=True, submit='Save entry', entry=None)
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
