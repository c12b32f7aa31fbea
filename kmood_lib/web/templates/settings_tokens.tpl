% rebase('layout.tpl', title=_('API tokens'))
% include('_settings_nav.tpl')
% if new_token:
<div class="card" role="status">
  <h2>{{!_html('Token “<bdi dir="auto">{name}</bdi>” created', name=new_token['name'])}}</h2>
  <p>{{_('Copy it now: it is shown only this once.')}}</p>
  <p class="token" translate="no" id="new-token">{{new_token['token']}}</p>
  <p class="muted">{{!_html('Send it as <code translate="no">{header}</code>.', header='Authorization: Bearer <token>')}}</p>
</div>
% end
<p class="muted">{{_('Tokens let scripts and other apps use the JSON API as you. Revoke one you no longer use.')}}</p>
<form method="post" action="/settings/tokens" class="card inline-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>{{_('Name')}} <input name="name" value="{{fields.get('name', '')}}" maxlength="100" required placeholder="{{_('phone shortcut')}}" dir="auto"></label>
  <button type="submit">{{_('Create token')}}</button>
</form>
% if tokens:
<h2>{{_('Your tokens')}}</h2>
<ul class="list">
% for token in tokens:
  <li>
    <form method="post" action="/settings/tokens/{{token['id']}}/revoke" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <span><strong dir="auto">{{token['name']}}</strong> <span class="muted">{{_('created {day}, last used {last}', day=i18n.day(helpers.utc_day(token['created_at'])), last=i18n.day(helpers.utc_day(token['last_used_at']))) if token['last_used_at'] else _('created {day}, never used', day=i18n.day(helpers.utc_day(token['created_at'])))}}</span></span>
      <button type="submit" class="link">{{_('Revoke')}}<span class="skip" dir="auto"> {{token['name']}}</span></button>
    </form>
  </li>
% end
</ul>
% end
