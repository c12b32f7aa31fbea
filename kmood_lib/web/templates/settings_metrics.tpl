% rebase('layout.tpl', title=_('Metrics'))
% include('_settings_nav.tpl')
<p class="muted">{{_('Numbers you want to track with each entry, such as hours of sleep or energy from 1 to 10.')}}</p>
<form method="post" action="/settings/metrics" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <div class="row">
    <label>{{_('Name')}} <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required placeholder="{{_('sleep')}}" dir="auto"></label>
    <label>{{_('Unit')}} <span class="muted">{{_('(optional)')}}</span> <input name="unit" value="{{fields.get('unit', '')}}" maxlength="32" placeholder="{{_('h')}}" dir="auto"></label>
  </div>
  <div class="row">
    <label>{{_('Lowest')}} <span class="muted">{{_('(optional)')}}</span> <input name="min" inputmode="decimal" value="{{fields.get('min', '')}}"></label>
    <label>{{_('Highest')}} <span class="muted">{{_('(optional)')}}</span> <input name="max" inputmode="decimal" value="{{fields.get('max', '')}}"></label>
  </div>
  <div class="actions"><button type="submit">{{_('Add metric')}}</button></div>
</form>
% if metrics:
<h2>{{_('Your metrics')}}</h2>
<ul class="list">
% for metric in metrics:
  <li>
    <form method="post" action="/settings/metrics/{{metric['id']}}" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>{{_('Name')}} <input name="name" value="{{metric['name']}}" maxlength="64" required dir="auto"></label>
      <label>{{_('Unit')}} <input name="unit" value="{{metric['unit']}}" maxlength="32" dir="auto"></label>
      <label>{{_('Lowest')}} <input name="min" inputmode="decimal" value="{{helpers.number(metric['min']) if metric['min'] is not None else ''}}"></label>
      <label>{{_('Highest')}} <input name="max" inputmode="decimal" value="{{helpers.number(metric['max']) if metric['max'] is not None else ''}}"></label>
      <button type="submit" class="secondary">{{_('Save')}}</button>
    </form>
    <p><a href="/settings/metrics/{{metric['id']}}/delete">{{!_html('Delete<span class="skip"> <bdi dir="auto">{name}</bdi></span>', name=metric['name'])}}</a></p>
  </li>
% end
</ul>
% end
