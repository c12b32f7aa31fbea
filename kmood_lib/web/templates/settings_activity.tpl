% rebase('layout.tpl', title=activity['name'])
% include('_settings_nav.tpl')
<p><a href="/settings/activities">‹ All activities</a></p>
<h2 dir="auto">{{activity['name']}}</h2>
<p class="muted">Used in {{activity['entries']}} entr{{'y' if activity['entries'] == 1 else 'ies'}}.{{' Archived: hidden from the log form, kept on its entries.' if activity['archived'] else ''}}</p>
<form method="post" action="/settings/activities/{{activity['id']}}" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>Name <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required dir="auto"></label>
  <label>Group <span class="muted">(empty: none)</span> <input name="group" value="{{fields.get('group', '')}}" maxlength="64" list="group-names" dir="auto"></label>
  <div class="actions"><button type="submit">Save</button></div>
</form>
<datalist id="group-names">
% for group in groups:
  <option value="{{group['name']}}">
% end
</datalist>
<form method="post" action="/settings/activities/{{activity['id']}}/archive" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="hidden" name="archived" value="{{'0' if activity['archived'] else '1'}}">
  <button type="submit" class="secondary">{{'Restore to the log form' if activity['archived'] else 'Archive'}}</button>
  <a class="button danger" href="/settings/activities/{{activity['id']}}/delete">Delete…</a>
</form>
