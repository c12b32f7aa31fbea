% rebase('layout.tpl', title='Stats')
<h1>Stats</h1>
<nav class="ranges" aria-label="Time range">
% for key, (name, days) in ranges.items():
  <a href="/stats?range={{key}}"{{!' aria-current="page"' if key == current else ''}}>{{name}}</a>
% end
</nav>
% if not summary['count']:
<p class="muted">No entries in this range yet. Log a few and come back.</p>
% else:
<p>{{range_name}}: <strong>{{summary['count']}}</strong> entries on {{summary['days_logged']}} days, average mood <strong>{{'%.2f' % summary['average']}}</strong>. Current streak {{summary['current_streak']}} days, longest {{summary['longest_streak']}}.</p>
<h2>Mood over time</h2>
% if over_time:
<div class="card">{{!over_time}}</div>
% end
<div class="chart-grid">
  <section><h2>Mood distribution</h2><div class="card">{{!distribution}}</div></section>
  <section><h2>By weekday</h2><div class="card">{{!weekday}}</div></section>
  <section><h2>By hour of the day</h2><div class="card">{{!hour}}</div></section>
</div>
<h2>Activities</h2>
% if impact:
<div class="table-wrap card">
<table class="data">
  <caption class="skip">Average mood with and without each activity</caption>
  <thead><tr><th scope="col">Activity</th><th scope="col" class="num">With</th><th scope="col" class="num">Without</th><th scope="col" class="num">Difference</th></tr></thead>
  <tbody>
  % for row in impact:
  <tr>
    <th scope="row">{{row['activity']}}</th>
    <td class="num">{{'%.2f' % row['average_with']}} <span class="muted">({{row['count_with']}})</span></td>
    <td class="num">{{'%.2f' % row['average_without'] if row['average_without'] is not None else '–'}} <span class="muted">({{row['count_without']}})</span></td>
    % diff = row['difference']
    <td class="num {{'up' if diff and diff > 0 else 'down' if diff and diff < 0 else ''}}">{{('%+.2f' % diff) + (' ▲' if diff > 0 else ' ▼' if diff < 0 else '') if diff is not None else '–'}}</td>
  </tr>
  % end
  </tbody>
</table>
</div>
% else:
<p class="muted">No activities logged in this range.</p>
% end
% end
