% rebase('layout.tpl', title=_('Delete entry'))
<h1>{{_('Delete this entry?')}}</h1>
<ul class="entries">
% include('_entry.tpl', entry=entry, show_time=False, actions=False)
</ul>
<p>{{_('It is removed for good, with its activities, metrics and song. The activities themselves stay.')}}</p>
<form method="post" action="/entries/{{entry['id']}}/delete" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="hidden" name="back" value="{{get('back') or ''}}">
  <button type="submit" class="danger">{{_('Delete entry')}}</button>
  <a class="button secondary" href="{{get('back') or '/entries'}}#entry-{{entry['id']}}">{{_('Keep it')}}</a>
</form>
