% rebase('layout.tpl', title='Edit entry')
<h1>Edit entry</h1>
<p class="muted">Logged {{ui.when(entry)}}.</p>
% if entry['location'] or entry['weather'] or entry['song']:
<ul class="entries summary"><!-- what the worker found out about it -->
  % include('_entry.tpl', entry=entry, show_time=False, actions=False)
</ul>
% end
% include('_entry_form.tpl', action='/entries/%d/edit' % entry['id'], creating=False, submit='Save changes')
