% rebase('layout.tpl', title=_('Import'))
% include('_settings_nav.tpl')
% from datetime import date
% day = lambda iso: helpers.escape(i18n.day(iso))
% if done:
<div class="card" role="status" id="import-result">
  <h2>{{_('Import finished')}}</h2>
  <p>{{!n_('<strong>{n}</strong> entry imported; <strong>{duplicates}</strong> skipped because they were already in your journal.', '<strong>{n}</strong> entries imported; <strong>{duplicates}</strong> skipped because they were already in your journal.', report['imported'], duplicates=i18n.number(report['duplicates']))}}</p>
  % if report.get('restored'):
  <ul>
    % for line in report['restored']:
    % said = said_html(line)
    <li>{{!said[:1].upper() + said[1:]}}.</li>
    % end
  </ul>
  % end
  <p><a href="/entries">{{_('See them in History')}}</a> · <a href="/calendar?year={{report['last_day'][:4] if report['last_day'] else ''}}">{{_('the year view')}}</a></p>
</div>
% else:
  % unknown = report['unknown_moods']
  % problems = report['problems']
  % source = {'daylio-backup': _('a Daylio backup'), 'kmood-json': _('a k-mood export')}.get(report['format'], _('a Daylio CSV'))
<div class="card" id="import-report">
  <h2>{{_('Ready to import') if not problems and not unknown else _('Before importing')}}</h2>
  % if report['rows'] and report['first_day']:
  <p>{{!n_('<strong>{n}</strong> entry readable, from {first} to {last} ({source}).', '<strong>{n}</strong> entries readable, from {first} to {last} ({source}).', report['rows'], first=day(report['first_day']), last=day(report['last_day']), source=helpers.escape(source))}}</p>
  % elif report['rows']:
  <p>{{!n_('<strong>{n}</strong> entry in the file ({source}).', '<strong>{n}</strong> entries in the file ({source}).', report['rows'], source=helpers.escape(source))}}</p>
  % end
  % if not problems and not unknown:
  <p>{{!n_('<strong>{n}</strong> will be imported; {duplicates} are already in your journal.', '<strong>{n}</strong> will be imported; {duplicates} are already in your journal.', report['imported'], duplicates=i18n.number(report['duplicates']))}}</p>
  % end
  % if report['moods']:
  <h3>{{_('Moods found')}}</h3>
  <ul class="mood-map">
    % for mood in report['moods']:
    <li><span class="badge lv{{mood['level']}}">{{!helpers.face(mood['level'], 18)}} <span dir="auto">{{labels[mood['level']]}}</span></span> <span>{{!_html('from “<bdi dir="auto">{name}</bdi>”', name=mood['name'])}}</span> <span class="muted">{{n_('{n} entry', '{n} entries', mood['rows'])}}</span></li>
    % end
  </ul>
  % end
</div>
  % if problems:
<div class="errors" role="alert">
  <strong>{{_('Nothing can be imported until these are fixed in the file:')}}</strong>
  <ul>
    % for line in problems:
    <li>{{!said_html(line)}}</li>
    % end
    % if report['more_problems']:
    <li>{{n_('… and {n} more', '… and {n} more', report['more_problems'])}}</li>
    % end
  </ul>
</div>
<p><a class="button secondary" href="/settings/import">{{_('Choose another file')}}</a></p>
  % else:
<form method="post" action="/settings/import/{{token}}" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    % if unknown:
  <h3>{{_('Mood names to map')}}</h3>
  <p class="muted">{{_("Daylio puts every mood in one of five groups, from rad to awful. These names are not Daylio's defaults or your own labels: tap the level each one means.")}}</p>
      % if any(mood['suggested'] for mood in unknown):
  <p class="muted">{{_('A level is already picked where the name holds a default mood (“pretty good” is good); check those too.')}}</p>
      % end
      % for i, mood in enumerate(unknown):
      % lines = ', '.join(_(where) for where in mood['first'])
  <fieldset class="map-mood">
    <legend><bdi dir="auto">“{{mood['name']}}”</bdi> <span class="muted">{{n_('{n} entry, first {lines} · suggested', '{n} entries, first {lines} · suggested', mood['rows'], lines=lines) if mood['suggested'] else n_('{n} entry, first {lines}', '{n} entries, first {lines}', mood['rows'], lines=lines)}}</span></legend>
    <input type="hidden" name="map_name_{{i}}" value="{{mood['name']}}">
    <div class="moods compact">
        % for level in (1, 2, 3, 4, 5):
      <input type="radio" name="map_level_{{i}}" value="{{level}}" id="map-{{i}}-{{level}}" required{{' checked' if mood['suggested'] == level else ''}}>
      <label for="map-{{i}}-{{level}}" class="lv{{level}}">{{!helpers.face(level, 20)}}<span dir="auto">{{labels[level]}}</span></label>
        % end
    </div>
  </fieldset>
      % end
    % end
  <div class="actions">
    <button type="submit">{{_('Map and import') if unknown else n_('Import {n} entry', 'Import {n} entries', report['imported'])}}</button>
    <button type="submit" class="secondary" formaction="/settings/import/{{token}}/cancel" formnovalidate>{{_('Cancel')}}</button>
  </div>
</form>
  % end
  % if report['warnings'] or report['ignored']:
<details class="card">
  <summary>{{_('Notes ({n})', n=i18n.number(len(report['warnings']) + len(report['ignored'])))}}</summary>
  <ul>
    % for line in report['ignored'] + report['warnings']:
    <li>{{!said_html(line)}}</li>
    % end
  </ul>
</details>
  % end
% end
