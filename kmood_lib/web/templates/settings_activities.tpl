% rebase('layout.tpl', title=_('Activities'))
% include('_settings_nav.tpl')
<form method="post" action="/settings/activities" class="card inline-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>{{_('New activity')}} <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required dir="auto"></label>
  <label>{{_('Group')}} <span class="muted">{{_('(optional)')}}</span> <input name="group" value="{{fields.get('group', '')}}" maxlength="64" list="group-names" dir="auto"></label>
  <button type="submit">{{_('Add')}}</button>
</form>
<datalist id="group-names">
% for group in groups:
  <option value="{{group['name']}}">
% end
</datalist>
<h2>{{_('Your activities')}} <span class="muted">({{i18n.number(len(activities))}})</span></h2>
% if not activities:
<p class="muted">{{_('None yet. They are also created when you type a new one while logging.')}}</p>
% else:
<p class="muted">{{_('Tick several to move, archive or delete them together; open one to rename it.')}}</p>
<input type="search" class="js-only list-filter" hidden placeholder="{{_('Find an activity')}}" aria-label="{{_('Find an activity')}}" autocomplete="off">
% for number, (group, members) in enumerate(by_group):
<section class="pick-group" aria-labelledby="pick-group-{{number}}">
  <h3>
  % if group:
    <span dir="auto" id="pick-group-{{number}}">{{group}}</span>
  % else:
    <span id="pick-group-{{number}}">{{_('No group')}}</span>
  % end
    <span class="muted count" data-all="{{len(members)}}">{{i18n.number(len(members))}}</span>
    % if group:
    <button type="button" class="link js-only pick-all" hidden>{{!_html('Select all<span class="skip"> in <bdi dir="auto">{group}</bdi></span>', group=group)}}</button></h3>
    % else:
    <button type="button" class="link js-only pick-all" hidden>{{!_html('Select all<span class="skip"> without a group</span>')}}</button></h3>
    % end
  <ul class="picks">
  % for activity in members:
    <li{{!' class="archived"' if activity['archived'] else ''}}>
      <input type="checkbox" name="ids" value="{{activity['id']}}" id="pick-{{activity['id']}}" form="bulk"{{' checked' if str(activity['id']) in selected else ''}}>
      <label for="pick-{{activity['id']}}">{{!'<span class="icon" aria-hidden="true">' if activity['icon'] else ''}}{{activity['icon'] or ''}}{{!'</span>' if activity['icon'] else ''}}<span dir="auto">{{activity['name']}}</span>
        <small class="muted">{{n_('{n} entry · archived', '{n} entries · archived', activity['entries']) if activity['archived'] else n_('{n} entry', '{n} entries', activity['entries'])}}</small></label>
      <a href="/settings/activities/{{activity['id']}}">{{!_html('Edit<span class="skip"> <bdi dir="auto">{name}</bdi></span>', name=activity['name'])}}</a>
    </li>
  % end
  </ul>
</section>
% end
<form method="post" action="/settings/activities/bulk" id="bulk" class="save-bar bulk-bar">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <p class="js-only muted" id="picked" role="status" hidden></p>
  <div class="bulk-fields">
    <label class="bulk-action"><span class="skip">{{_('With the selected activities')}}</span>
      <select name="action" id="bulk-action">
      % for value, label in (('group', _('Move to group')), ('archive', _('Archive')), ('restore', _('Restore')), ('delete', _('Delete…'))):
        <option value="{{value}}"{{' selected' if fields.get('action') == value else ''}}>{{label}}</option>
      % end
      </select>
    </label>
    <button type="submit">{{_('Apply')}}</button>
    <label class="inline" id="to-group">{{_('Group')}} <input name="to_group" value="{{fields.get('to_group', '')}}" maxlength="64" list="group-names" dir="auto" aria-describedby="to-group-hint"></label>
    <small class="muted" id="to-group-hint">{{_('Left empty, the move takes them out of their group.')}}</small>
  </div>
</form>
% end
% if groups:
<h2>{{_('Groups')}}</h2>
<ul class="list">
% for group in groups:
  <li>
    <form method="post" action="/settings/groups/{{group['id']}}" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>{{_('Group name')}} <input name="name" value="{{group['name']}}" maxlength="64" required dir="auto"></label>
      <button type="submit" class="secondary">{{_('Rename')}}</button>
    </form>
    <form method="post" action="/settings/groups/{{group['id']}}/delete" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <span class="muted">{{n_('{n} activity; deleting the group keeps it, ungrouped.', '{n} activities; deleting the group keeps them, ungrouped.', group['activities'])}}</span>
      <button type="submit" class="link">{{!_html('Delete group<span class="skip"> <bdi dir="auto">{name}</bdi></span>', name=group['name'])}}</button>
    </form>
  </li>
% end
</ul>
% end
