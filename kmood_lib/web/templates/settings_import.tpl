% rebase('layout.tpl', title='Import & export')
% include('_settings_nav.tpl')
<h2>Import</h2>
<p class="muted">Bring your history from Daylio — a CSV export (Daylio → More → Export entries) or a <code>.daylio</code> backup — or from a k-mood JSON export. You see what will be imported before anything is written, and importing the same history again adds nothing.</p>
<form method="post" action="/settings/import" enctype="multipart/form-data" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>File <span class="muted">(CSV, .daylio or k-mood JSON, up to {{max_mb}} MB)</span>
    <input type="file" name="file" accept=".csv,.daylio,.json,text/csv,application/zip,application/json" required>
  </label>
  <label>Mood map <span class="muted">(optional: levels for renamed or custom mood names, e.g. <code>sad=2, fine=3</code>; you can also pick them on the next page)</span>
    <input name="mood_map" value="{{fields.get('mood_map', '')}}" autocomplete="off" placeholder="sad=2, fine=3">
  </label>
  <div class="actions"><button type="submit">Check the file</button></div>
</form>
<h2>Export</h2>
<p class="muted">Everything you have logged, to keep or to take elsewhere. The JSON file holds all of it (entries with their activities, metrics, songs, weather and places; your moods, activities and metrics) and imports back into any k-mood, here or on a new server; the ZIP adds your photos. The CSV uses Daylio's columns, so tools that read Daylio exports read it too.</p>
<p class="actions"><a class="button" href="/api/export?format=zip" download>Download ZIP (JSON and photos)</a> <a class="button secondary" href="/api/export?format=json" download>Download JSON</a> <a class="button secondary" href="/api/export?format=csv" download>Download CSV</a></p>
