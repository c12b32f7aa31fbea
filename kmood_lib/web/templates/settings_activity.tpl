% rebase('layout.tpl', title=_('Activity'))
% include('_settings_nav.tpl')
<p><a href="/settings/activities">‹ {{_('All activities')}}</a></p>
<h2>
  % if activity['icon']:
  <span class="icon" aria-hidden="true">{{activity['icon']}}</span>
  % end
  <span dir="auto">{{activity['name']}}</span></h2>
% if activity['archived']:
<p class="muted">{{n_('Used in {n} entry. Archived: hidden from the log form, kept on its entries.', 'Used in {n} entries. Archived: hidden from the log form, kept on its entries.', activity['entries'])}}</p>
% else:
<p class="muted">{{n_('Used in {n} entry.', 'Used in {n} entries.', activity['entries'])}}</p>
% end
<form method="post" action="/settings/activities/{{activity['id']}}" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>{{_('Name')}} <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required dir="auto"></label>
  <label>{{_('Group')}} <span class="muted">{{_('(empty: none)')}}</span> <input name="group" value="{{fields.get('group', '')}}" maxlength="64" list="group-names" dir="auto"></label>
  <fieldset class="icon-pick">
    <legend>{{_('Icon')}} <span class="muted">{{_('(optional: shown before its name)')}}</span></legend>
    % picked = fields.get('icon_pick', '')
    <div class="icon-choices">
      <input type="radio" name="icon_pick" value="" id="icon-none"{{' checked' if not picked else ''}}>
      <label for="icon-none" class="none">{{_('None')}}</label>
      % for n, choice in enumerate(icon_choices):
      <input type="radio" name="icon_pick" value="{{choice}}" id="icon-{{n}}"{{' checked' if picked == choice else ''}}>
      <label for="icon-{{n}}">{{choice}}</label>
      % end
    </div>
    <label>{{_('Or type an emoji')}} <input name="icon" value="{{fields.get('icon', '')}}" maxlength="16" autocomplete="off" aria-describedby="icon-hint"{{!' aria-invalid="true"' if errors.get('icon') else ''}}></label>
    <small class="muted" id="icon-hint">{{_('One emoji from your keyboard; it replaces the one picked above.')}}</small>
  </fieldset>
  <div class="actions"><button type="submit">{{_('Save')}}</button></div>
</form>
<datalist id="group-names">
% for group in groups:
  <option value="{{group['name']}}">
% end
</datalist>
<form method="post" action="/settings/activities/{{activity['id']}}/archive" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="hidden" name="archived" value="{{'0' if activity['archived'] else '1'}}">
  <button type="submit" class="secondary">{{_('Restore to the log form') if activity['archived'] else _('Archive')}}</button>
  <a class="button danger" href="/settings/activities/{{activity['id']}}/delete">{{_('Delete…')}}</a>
</form>
