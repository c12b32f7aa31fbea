<li class="entry" id="entry-{{entry['id']}}">
  <div class="entry-head">
    <span class="badge lv{{entry['mood']}}">{{!ui.face(entry['mood'], 20)}} {{entry['mood_label']}}</span>
    <span class="time">{{ui.clock_time(entry) if show_time else ui.when(entry)}}</span>
    % if get('actions', True):
    <span class="entry-actions">
      <a href="/entries/{{entry['id']}}/edit">Edit<span class="skip"> entry of {{ui.when(entry)}}</span></a>
      <a href="/entries/{{entry['id']}}/delete">Delete<span class="skip"> entry of {{ui.when(entry)}}</span></a>
    </span>
    % end
  </div>
  % if entry['note_title']:
  <p class="title">{{entry['note_title']}}</p>
  % end
  % if entry['note']:
  <p class="note">{{entry['note']}}</p>
  % end
  % if entry['activities']:
  <ul class="tags" aria-label="Activities">
    % for name in entry['activities']:
    <li>{{name}}</li>
    % end
  </ul>
  % end
  % has_meta = entry['metrics'] or entry['location'] or entry['weather'] or entry['song']
  % if has_meta:
  <div class="meta">
    % for name, value in entry['metrics'].items():
    <span>{{name}}: {{ui.number(value)}}</span>
    % end
    % if entry['location']:
    <span>{{entry['location']['place'] or '%.4f, %.4f' % (entry['location']['lat'], entry['location']['lon'])}}</span>
    % end
    % if entry['weather'] and not entry['weather'].get('unavailable'):
    <span>{{entry['weather']['description']}}, {{'%.1f' % entry['weather']['temperature_c']}} °C</span>
    % end
    % if entry['song']:
    <span>♪ {{entry['song']['artist']}} – {{entry['song']['title']}}</span>
    % end
  </div>
  % end
</li>
