% rebase('layout.tpl', title='Activities')
% include('_settings_nav.tpl')
<form method="post" action="/settings/activities" class="card inline-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>New activity <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required></label>
  <label>Group <input name="group" value="{{fields.get('group', '')}}" maxlength="64" list="group-names" placeholder="optional"></label>
  <button type="submit">Add</button>
</form>
<datalist id="group-names">
% for group in groups:
  <option value="{{group['name']}}">
% end
</datalist>
<h2>Your activities</h2>
% if not activities:
<p class="muted">None yet. They are also created when you type a new one while logging.</p>
% end
<ul class="list">
% for activity in activities:
  <li>
    <form method="post" action="/settings/activities/{{activity['id']}}" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>Name <input name="name" value="{{activity['name']}}" maxlength="64" required></label>
      <label>Group <input name="group" value="{{activity['group'] or ''}}" maxlength="64" list="group-names"></label>
      <button type="submit" class="secondary">Save</button>
    </form>
    <form method="post" action="/settings/activities/{{activity['id']}}/archive" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <input type="hidden" name="archived" value="{{'0' if activity['archived'] else '1'}}">
      <span class="muted">{{'Archived: hidden from the log form, kept on its entries. ' if activity['archived'] else ''}}Used in {{activity['entries']}} entr{{'y' if activity['entries'] == 1 else 'ies'}}.</span>
      <button type="submit" class="link">{{'Restore' if activity['archived'] else 'Archive'}}<span class="skip"> {{activity['name']}}</span></button>
      <a href="/settings/activities/{{activity['id']}}/delete">Delete<span class="skip"> {{activity['name']}}</span></a>
    </form>
  </li>
% end
</ul>
% if groups:
<h2>Groups</h2>
<ul class="list">
% for group in groups:
  <li>
    <form method="post" action="/settings/groups/{{group['id']}}" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>Group name <input name="name" value="{{group['name']}}" maxlength="64" required></label>
      <button type="submit" class="secondary">Rename</button>
    </form>
    <form method="post" action="/settings/groups/{{group['id']}}/delete" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <span class="muted">{{group['activities']}} activit{{'y' if group['activities'] == 1 else 'ies'}}; deleting the group keeps them, ungrouped.</span>
      <button type="submit" class="link">Delete group<span class="skip"> {{group['name']}}</span></button>
    </form>
  </li>
% end
</ul>
% end
