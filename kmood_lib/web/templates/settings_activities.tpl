% rebase('layout.tpl', title='Activities')
% include('_settings_nav.tpl')
<form method="post" action="/settings/activities" class="card inline-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>New activity <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required dir="auto"></label>
  <label>Group <span class="muted">(optional)</span> <input name="group" value="{{fields.get('group', '')}}" maxlength="64" list="group-names" dir="auto"></label>
  <button type="submit">Add</button>
</form>
<datalist id="group-names">
% for group in groups:
  <option value="{{group['name']}}">
% end
</datalist>
<h2>Your activities <span class="muted">({{len(activities)}})</span></h2>
% if not activities:
<p class="muted">None yet. They are also created when you type a new one while logging.</p>
% else:
<p class="muted">Tick several to move, archive or delete them together; open one to rename it.</p>
<input type="search" class="js-only list-filter" hidden placeholder="Find an activity" aria-label="Find an activity" autocomplete="off">
% for group, members in by_group:
<section class="pick-group" aria-label="{{group or 'No group'}}">
  <h3><span dir="auto">{{group or 'No group'}}</span> <span class="muted count" data-all="{{len(members)}}">{{len(members)}}</span>
    <button type="button" class="link js-only pick-all" hidden>Select all<span class="skip"> in {{group or 'No group'}}</span></button></h3>
  <ul class="picks">
  % for activity in members:
    <li{{!' class="archived"' if activity['archived'] else ''}}>
      <input type="checkbox" name="ids" value="{{activity['id']}}" id="pick-{{activity['id']}}" form="bulk"{{' checked' if str(activity['id']) in selected else ''}}>
      <label for="pick-{{activity['id']}}">{{!'<span class="icon" aria-hidden="true">' if activity['icon'] else ''}}{{activity['icon'] or ''}}{{!'</span>' if activity['icon'] else ''}}<span dir="auto">{{activity['name']}}</span>
        <small class="muted">{{activity['entries']}} entr{{'y' if activity['entries'] == 1 else 'ies'}}{{' · archived' if activity['archived'] else ''}}</small></label>
      <a href="/settings/activities/{{activity['id']}}">Edit<span class="skip"> {{activity['name']}}</span></a>
    </li>
  % end
  </ul>
</section>
% end
<form method="post" action="/settings/activities/bulk" id="bulk" class="save-bar bulk-bar">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <p class="js-only muted" id="picked" role="status" hidden></p>
  <div class="bulk-fields">
    <label class="bulk-action"><span class="skip">With the selected activities</span>
      <select name="action" id="bulk-action">
      % for value, label in (('group', 'Move to group'), ('archive', 'Archive'), ('restore', 'Restore'), ('delete', 'Delete…')):
        <option value="{{value}}"{{' selected' if fields.get('action') == value else ''}}>{{label}}</option>
      % end
      </select>
    </label>
    <button type="submit">Apply</button>
    <label class="inline" id="to-group">Group <input name="to_group" value="{{fields.get('to_group', '')}}" maxlength="64" list="group-names" dir="auto" aria-describedby="to-group-hint"></label>
    <small class="muted" id="to-group-hint">Left empty, the move takes them out of their group.</small>
  </div>
</form>
% end
% if groups:
<h2>Groups</h2>
<ul class="list">
% for group in groups:
  <li>
    <form method="post" action="/settings/groups/{{group['id']}}" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>Group name <input name="name" value="{{group['name']}}" maxlength="64" required dir="auto"></label>
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
