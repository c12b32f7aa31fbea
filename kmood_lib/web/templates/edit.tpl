% rebase('layout.tpl', title='Edit entry')
<h1>Edit entry</h1>
<p class="muted">Logged {{ui.when(entry)}}.</p>
% include('_entry_form.tpl', action='/entries/%d/edit' % entry['id'], creating=False, submit='Save changes')
