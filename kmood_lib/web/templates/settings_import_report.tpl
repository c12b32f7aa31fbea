% rebase('layout.tpl', title='Import')
% include('_settings_nav.tpl')
% if done:
<div class="card" role="status" id="import-result">
  <h2>Import finished</h2>
  <p><strong>{{report['imported']}}</strong> entr{{'y' if report['imported'] == 1 else 'ies'}} imported; <strong>{{report['duplicates']}}</strong> skipped because they were already in your journal.</p>
  % if report.get('restored'):
  <ul>
    % for line in report['restored']:
    <li>{{line[:1].upper() + line[1:]}}.</li>
    % end
  </ul>
  % end
  <p><a href="/entries">See them in History</a> · <a href="/calendar?year={{report['last_day'][:4] if report['last_day'] else ''}}">the year view</a></p>
</div>
% else:
  % unknown = report['unknown_moods']
  % problems = report['problems']
<div class="card" id="import-report">
  <h2>{{'Ready to import' if not problems and not unknown else 'Before importing'}}</h2>
  % if report['rows']:
  <p><strong>{{report['rows']}}</strong> entr{{'y' if report['rows'] == 1 else 'ies'}} readable, from {{report['first_day']}} to {{report['last_day']}}{{' (a Daylio backup)' if report['format'] == 'daylio-backup' else ' (a Daylio CSV)'}}.</p>
  % end
  % if not problems and not unknown:
  <p><strong>{{report['imported']}}</strong> will be imported; {{report['duplicates']}} are already in your journal.</p>
  % end
  % if report['moods']:
  <h3>Moods found</h3>
  <ul class="mood-map">
    % for mood in report['moods']:
    <li><span class="badge lv{{mood['level']}}">{{!helpers.face(mood['level'], 18)}} {{labels[mood['level']]}}</span> <span>from “{{mood['name']}}”</span> <span class="muted">{{mood['rows']}} entr{{'y' if mood['rows'] == 1 else 'ies'}}</span></li>
    % end
  </ul>
  % end
</div>
  % if problems:
<div class="errors" role="alert">
  <strong>Nothing can be imported until these are fixed in the file:</strong>
  <ul>
    % for line in problems:
    <li>{{line}}</li>
    % end
    % if report['more_problems']:
    <li>… and {{report['more_problems']}} more</li>
    % end
  </ul>
</div>
<p><a class="button secondary" href="/settings/import">Choose another file</a></p>
  % else:
<form method="post" action="/settings/import/{{token}}" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    % if unknown:
  <h3>Mood names to map</h3>
  <p class="muted">Daylio puts every mood in one of five groups, from rad to awful. These names are not Daylio's defaults or your own labels: tap the level each one means.</p>
      % if any(mood['suggested'] for mood in unknown):
  <p class="muted">A level is already picked where the name holds a default mood (“pretty good” is good); check those too.</p>
      % end
      % for i, mood in enumerate(unknown):
  <fieldset class="map-mood">
    <legend><bdi>“{{mood['name']}}”</bdi> <span class="muted">{{mood['rows']}} entr{{'y' if mood['rows'] == 1 else 'ies'}}, first {{', '.join(mood['first'])}}{{' · suggested' if mood['suggested'] else ''}}</span></legend>
    <input type="hidden" name="map_name_{{i}}" value="{{mood['name']}}">
    <div class="moods compact">
        % for level in (1, 2, 3, 4, 5):
      <input type="radio" name="map_level_{{i}}" value="{{level}}" id="map-{{i}}-{{level}}" required{{' checked' if mood['suggested'] == level else ''}}>
      <label for="map-{{i}}-{{level}}" class="lv{{level}}">{{!helpers.face(level, 20)}}<span>{{labels[level]}}</span></label>
        % end
    </div>
  </fieldset>
      % end
    % end
  <div class="actions">
    <button type="submit">{{'Map and import' if unknown else 'Import %d entr%s' % (report['imported'], 'y' if report['imported'] == 1 else 'ies')}}</button>
    <button type="submit" class="secondary" formaction="/settings/import/{{token}}/cancel" formnovalidate>Cancel</button>
  </div>
</form>
  % end
  % if report['warnings'] or report['ignored']:
<details class="card">
  <summary>Notes ({{len(report['warnings']) + len(report['ignored'])}})</summary>
  <ul>
    % for line in report['ignored'] + report['warnings']:
    <li>{{line}}</li>
    % end
  </ul>
</details>
  % end
% end
