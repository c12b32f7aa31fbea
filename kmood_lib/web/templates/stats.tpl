% rebase('layout.tpl', title='Stats')
<h1>Stats</h1>
<p class="lead-link"><a href="/insights{{'?range=' + current if current in insight_ranges else ''}}">Insights: what goes with your better and worse days ›</a></p>
<nav class="ranges" aria-label="Time range">
% for key, (name, days) in ranges.items():
  <a href="/stats?range={{key}}" aria-current="{{'page' if key == current else 'false'}}">{{name}}</a>
% end
</nav>
% if not summary['count'] and last_day:
<p class="muted">No entries in this range. Your last entry is from {{last_day.strftime('%d %B %Y').lstrip('0')}}: <a href="/stats?range=all">see all time</a>.</p>
% elif not summary['count']:
<p class="muted">No entries yet. Log a few and come back.</p>
% else:
<p>{{range_name}}: <strong>{{summary['count']}}</strong> entr{{'y' if summary['count'] == 1 else 'ies'}} on {{summary['days_logged']}} day{{'' if summary['days_logged'] == 1 else 's'}}, average mood <strong>{{!helpers.average_mood(summary['average'], labels)}}</strong>. Current streak {{summary['current_streak']}} day{{'' if summary['current_streak'] == 1 else 's'}}, longest {{summary['longest_streak']}}.</p>
<h2>Mood over time</h2>
% if over_time:
<div class="card">{{!over_time}}
<p class="chart-key"><span class="key-item"><span class="key week" aria-hidden="true"></span> weekly average</span> <span class="key-item"><span class="key month" aria-hidden="true"></span> monthly average</span></p>
  % if over_time_note:
<p class="chart-note">{{over_time_note}}</p>
  % end
</div>
% end
<div class="chart-grid">
  <section><h2>Mood distribution</h2><div class="card">{{!distribution}}</div></section>
  <section><h2>By weekday</h2><div class="card">{{!weekday}}
  <p class="chart-key"><span>Above the line: better than your average ({{!helpers.average_mood(summary['average'], labels, 1)}}); below: worse. Days with fewer than 3 entries are left empty.</span></p></div></section>
</div>
<section><h2>By hour of the day</h2><div class="card">{{!hour}}
<p class="chart-key">Against your average, by local hour; hours with fewer than 3 entries are left empty.</p></div></section>
% if by_temperature:
<h2>Weather</h2>
% known = weather['entries_with_weather']
<p class="muted">From the {{known}} entr{{'y' if known == 1 else 'ies'}} in this range whose weather is known.</p>
<div class="chart-grid">
  <section><h3>By temperature</h3><div class="card">{{!by_temperature}}</div></section>
  <section><h3>By conditions</h3><div class="card">{{!by_conditions}}</div></section>
</div>
% end
% if by_place or by_artist:
<div class="chart-grid">
  % if by_place:
  <section><h2>Places</h2>
  <p class="muted">Where you logged most, from the {{places['entries_with_place']}} entr{{'y' if places['entries_with_place'] == 1 else 'ies'}} with a named place.</p>
  <div class="card">{{!by_place}}</div></section>
  % end
  % if by_artist:
  <section><h2>Music</h2>
  <p class="muted">The artists you heard most, from the {{music['entries_with_song']}} entr{{'y' if music['entries_with_song'] == 1 else 'ies'}} with a song.</p>
  <div class="card">{{!by_artist}}</div></section>
  % end
</div>
% end
<h2 id="activities">Activities</h2>
% if impact:
<p class="muted">Average mood on entries with each activity and without it. Activities logged on at least {{needed_days}} days, and missing on as many, come first, the biggest difference either way first; the insights compare the same ones. The rest are marked <em>few days</em>: their difference says little yet.</p>
<div class="table-wrap card" role="region" aria-labelledby="impact-caption" tabindex="0">
<table class="data">
  <caption class="skip" id="impact-caption">Average mood with and without each activity</caption>
  <thead><tr><th scope="col">Activity</th><th scope="col" class="num">With</th><th scope="col" class="num">Without</th><th scope="col" class="num">Difference</th></tr></thead>
  <tbody>
  % for row in impact:
  <tr{{!'' if row['enough'] else ' class="few"'}}>
    <th scope="row">{{row['activity']}}{{!'' if row['enough'] else ' <span class="tag muted">few days</span>'}}</th>
    <td class="num">{{!helpers.average_mood(row['average_with'], labels, named=False)}} <span class="muted">({{row['days_with']}} d)</span></td>
    <td class="num">{{!helpers.average_mood(row['average_without'], labels, named=False) if row['average_without'] is not None else '–'}} <span class="muted">({{row['days_without']}} d)</span></td>
    % diff = helpers.decimal(row['difference'], 2, sign=True) if row['difference'] is not None else '–'
    % way = {'+': ('up', ' ▲'), '-': ('down', ' ▼')}.get(diff[0], ('', ''))
    <td class="num {{way[0]}}">{{diff + way[1]}}</td>
  </tr>
  % end
  </tbody>
</table>
</div>
<p class="chart-key">d: logged days with the activity and without it.</p>
  % if impact_pages > 1:
<nav class="pager" aria-label="Activity pages">
    % if impact_page > 1:
  <a class="button secondary" href="/stats?range={{current}}&amp;activities_page={{impact_page - 1}}#activities">‹ Previous</a>
    % end
  <span class="muted">Page {{impact_page}} of {{impact_pages}}</span>
    % if impact_page < impact_pages:
  <a class="button secondary" href="/stats?range={{current}}&amp;activities_page={{impact_page + 1}}#activities">Next ›</a>
    % end
</nav>
  % end
% elif impact_logged:
<p class="muted">The activities in this range were on every entry or on none: nothing to compare.</p>
% else:
<p class="muted">No activities logged in this range.</p>
% end
% end
