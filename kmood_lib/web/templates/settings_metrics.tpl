% rebase('layout.tpl', title='Metrics')
% include('_settings_nav.tpl')
<p class="muted">Numbers you want to track with each entry, such as hours of sleep or energy from 1 to 10.</p>
<form method="post" action="/settings/metrics" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <div class="row">
    <label>Name <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required placeholder="sleep"></label>
    <label>Unit <span class="muted">(optional)</span> <input name="unit" value="{{fields.get('unit', '')}}" maxlength="32" placeholder="h"></label>
  </div>
  <div class="row">
    <label>Lowest <span class="muted">(optional)</span> <input name="min" inputmode="decimal" value="{{fields.get('min', '')}}"></label>
    <label>Highest <span class="muted">(optional)</span> <input name="max" inputmode="decimal" value="{{fields.get('max', '')}}"></label>
  </div>
  <div class="actions"><button type="submit">Add metric</button></div>
</form>
% if metrics:
<h2>Your metrics</h2>
<ul class="list">
% for metric in metrics:
  <li>
    <form method="post" action="/settings/metrics/{{metric['id']}}" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>Name <input name="name" value="{{metric['name']}}" maxlength="64" required></label>
      <label>Unit <input name="unit" value="{{metric['unit']}}" maxlength="32"></label>
      <label>Lowest <input name="min" inputmode="decimal" value="{{helpers.number(metric['min']) if metric['min'] is not None else ''}}"></label>
      <label>Highest <input name="max" inputmode="decimal" value="{{helpers.number(metric['max']) if metric['max'] is not None else ''}}"></label>
      <button type="submit" class="secondary">Save</button>
    </form>
    <p><a href="/settings/metrics/{{metric['id']}}/delete">Delete<span class="skip"> {{metric['name']}}</span></a></p>
  </li>
% end
</ul>
% end
