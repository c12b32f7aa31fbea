% rebase('layout.tpl', title=_('Import & export'))
% include('_settings_nav.tpl')
<h2>{{_('Import')}}</h2>
<p class="muted">{{!_html('Bring your history from Daylio — a CSV export (Daylio → More → Export entries) or a <code translate="no">.daylio</code> backup — or from a k-mood JSON export. You see what will be imported before anything is written, and importing the same history again adds nothing.')}}</p>
<form method="post" action="/settings/import" enctype="multipart/form-data" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>{{_('File')}} <span class="muted">{{_('(CSV, .daylio or k-mood JSON, up to {n} MB)', n=i18n.number(max_mb))}}</span>
    <input type="file" name="file" accept=".csv,.daylio,.json,text/csv,application/zip,application/json" required>
  </label>
  % example = _('sad=2, fine=3')
  <label>{{_('Mood map')}} <span class="muted">{{!_html('(optional: levels for renamed or custom mood names, e.g. <code>{example}</code>; you can also pick them on the next page)', example=example)}}</span>
    <input name="mood_map" value="{{fields.get('mood_map', '')}}" autocomplete="off" placeholder="{{example}}" dir="auto">
  </label>
  <div class="actions"><button type="submit">{{_('Check the file')}}</button></div>
</form>
<h2>{{_('Export')}}</h2>
<p class="muted">{{_("Everything you have logged, to keep or to take elsewhere. The JSON file holds all of it (entries with their activities, metrics, songs, weather and places; your moods, activities and metrics) and imports back into any k-mood, here or on a new server; the ZIP adds your photos. The CSV uses Daylio's columns, so tools that read Daylio exports read it too.")}}</p>
<p class="actions"><a class="button" href="/api/export?format=zip" download>{{_('Download ZIP (JSON and photos)')}}</a> <a class="button secondary" href="/api/export?format=json" download>{{_('Download JSON')}}</a> <a class="button secondary" href="/api/export?format=csv" download>{{_('Download CSV')}}</a></p>
