% rebase('layout.tpl', title=_('Stats'))
<h1>{{_('Stats')}}</h1>
<p class="lead-link"><a href="/insights{{'?range=' + current if current in insight_ranges else ''}}">{{_('Insights: what goes with your better and worse days ›')}}</a></p>
<p class="lead-link"><a href="/report?range={{current}}">{{_('A report of these days, to print or share ›')}}</a></p>
<nav class="ranges" aria-label="{{_('Time range')}}">
% for key, (name, days) in ranges.items():
  <a href="/stats?range={{key}}" aria-current="{{'page' if key == current else 'false'}}">{{_(name)}}</a>
% end
</nav>
% if not summary['count'] and last_day:
<p class="muted">{{!_html('No entries in this range. Your last entry is from {day}: <a href="/stats?range=all">see all time</a>.', day=said.day(last_day, 'long'))}}</p>
% elif not summary['count']:
<p class="muted">{{_('No entries yet. Log a few and come back.')}}</p>
% else:
<p>{{!n_('{range}: <strong>{n}</strong> entry on {days}, average mood <strong>{mood}</strong>.', '{range}: <strong>{n}</strong> entries on {days}, average mood <strong>{mood}</strong>.', summary['count'], range=_(range_name), days=n_('{n} day', '{n} days', summary['days_logged']), mood=said.mood(summary['average']))}} {{n_('Current streak {n} day, longest {longest}.', 'Current streak {n} days, longest {longest}.', summary['current_streak'], longest=i18n.number(summary['longest_streak']))}}</p>
<h2>{{_('Mood over time')}}</h2>
% if over_time:
<div class="card">{{!over_time}}
<p class="chart-key"><span class="key-item"><span class="key week" aria-hidden="true"></span> {{_('weekly average')}}</span> <span class="key-item"><span class="key month" aria-hidden="true"></span> {{_('monthly average')}}</span></p>
  % if over_time_note:
<p class="chart-note">{{over_time_note}}</p>
  % end
</div>
% end
<div class="chart-grid">
  <section><h2>{{_('Mood distribution')}}</h2><div class="card">{{!distribution}}</div></section>
  <section><h2>{{_('By weekday')}}</h2><div class="card">{{!weekday}}
  <p class="chart-key"><span>{{!_('Above the line: better than your average ({mood}); below: worse. Days with fewer than 3 entries are left empty.', mood=said.mood(summary['average'], 1))}}</span></p></div></section>
</div>
<section><h2>{{_('By hour of the day')}}</h2><div class="card">{{!hour}}
<p class="chart-key">{{_('Against your average, by local hour; hours with fewer than 3 entries are left empty.')}}</p></div></section>
% if by_temperature:
<h2>{{_('Weather')}}</h2>
<p class="muted">{{n_('From the {n} entry in this range whose weather is known.', 'From the {n} entries in this range whose weather is known.', weather['entries_with_weather'])}}</p>
<div class="chart-grid">
  <section><h3>{{_('By temperature')}}</h3><div class="card">{{!by_temperature}}</div></section>
  <section><h3>{{_('By conditions')}}</h3><div class="card">{{!by_conditions}}</div></section>
</div>
% end
% if by_place or by_artist:
<div class="chart-grid">
  % if by_place:
  <section><h2>{{_('Places')}}</h2>
  <p class="muted">{{n_('Where you logged most, from the {n} entry with a named place.', 'Where you logged most, from the {n} entries with a named place.', places['entries_with_place'])}}</p>
  <div class="card">{{!by_place}}</div></section>
  % end
  % if by_artist:
  <section><h2>{{_('Music')}}</h2>
  <p class="muted">{{n_('The artists you heard most, from the {n} entry with a song.', 'The artists you heard most, from the {n} entries with a song.', music['entries_with_song'])}}</p>
  <div class="card">{{!by_artist}}</div></section>
  % end
</div>
% end
<h2 id="activities">{{_('Activities')}}</h2>
% if impact:
<p class="muted">{{!n_('Average mood on entries with each activity and without it. Activities logged on at least {n} day, and missing on as many, come first, the biggest difference either way first; the insights compare the same ones. The rest are marked <em>few days</em>: their difference says little yet.', 'Average mood on entries with each activity and without it. Activities logged on at least {n} days, and missing on as many, come first, the biggest difference either way first; the insights compare the same ones. The rest are marked <em>few days</em>: their difference says little yet.', needed_days)}}</p>
<div class="table-wrap card" role="region" aria-labelledby="impact-caption" tabindex="0">
<table class="data">
  <caption class="skip" id="impact-caption">{{_('Average mood with and without each activity')}}</caption>
  <thead><tr><th scope="col">{{_('Activity')}}</th><th scope="col" class="num">{{_('With')}}</th><th scope="col" class="num">{{_('Without')}}</th><th scope="col" class="num">{{_('Difference')}}</th></tr></thead>
  <tbody>
  % for row in impact:
  <tr{{!'' if row['enough'] else ' class="few"'}}>
    <th scope="row"><span dir="auto">{{row['activity']}}</span>{{!'' if row['enough'] else ' <span class="tag muted">' + _('few days') + '</span>'}}</th>
    <td class="num">{{!said.mood(row['average_with'], named=False)}} <span class="muted">{{_('({days} d)', days=i18n.number(row['days_with']))}}</span></td>
    <td class="num">{{!said.mood(row['average_without'], named=False) if row['average_without'] is not None else '–'}} <span class="muted">{{_('({days} d)', days=i18n.number(row['days_without']))}}</span></td>
    % diff = said.decimal(row['difference'], 2, sign=True) if row['difference'] is not None else '–'
    % way = {'+': ('up', ' ▲'), '-': ('down', ' ▼')}.get(diff[0], ('', ''))
    <td class="num {{way[0]}}">{{diff + way[1]}}</td>
  </tr>
  % end
  </tbody>
</table>
</div>
<p class="chart-key">{{_('d: logged days with the activity and without it.')}}</p>
  % if impact_pages > 1:
<nav class="pager" aria-label="{{_('Activity pages')}}">
    % if impact_page > 1:
  <a class="button secondary" href="/stats?range={{current}}&amp;activities_page={{impact_page - 1}}#activities">{{_('‹ Previous')}}</a>
    % end
  <span class="muted">{{_('Page {page} of {pages}', page=i18n.number(impact_page), pages=i18n.number(impact_pages))}}</span>
    % if impact_page < impact_pages:
  <a class="button secondary" href="/stats?range={{current}}&amp;activities_page={{impact_page + 1}}#activities">{{_('Next ›')}}</a>
    % end
</nav>
  % end
% elif impact_logged:
<p class="muted">{{_('The activities in this range were on every entry or on none: nothing to compare.')}}</p>
% else:
<p class="muted">{{_('No activities logged in this range.')}}</p>
% end
% end
