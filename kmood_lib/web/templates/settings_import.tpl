% rebase('layout.tpl', title='Import')
% include('_settings_nav.tpl')
<p class="muted">Bring your history from Daylio: a CSV export (Daylio → More → Export entries) or a <code>.daylio</code> backup. You see what will be imported before anything is written, and importing the same history again adds nothing.</p>
<form method="post" action="/settings/import" enctype="multipart/form-data" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>File <span class="muted">(CSV or .daylio, up to {{max_mb}} MB)</span>
    <input type="file" name="file" accept=".csv,.daylio,text/csv,application/zip" required>
  </label>
  <label>Mood map <span class="muted">(optional: levels for renamed or custom mood names, e.g. <code>sad=2, fine=3</code>; you can also pick them on the next page)</span>
    <input name="mood_map" value="{{fields.get('mood_map', '')}}" autocomplete="off" placeholder="sad=2, fine=3">
  </label>
  <div class="actions"><button type="submit">Check the file</button></div>
</form>
