% # The report itself (SPEC §15): shown to its owner by report.tpl and through a link by
% # shared_report.tpl; printed as it is shown, with print CSS (style.css, @media print).
% s = summary
<article class="report" aria-labelledby="report-title">
<header class="report-head">
  <h1 id="report-title">{{_('Mood report')}}</h1>
  <p class="period"><strong>{{period}}</strong> <span class="muted">{{n_('({n} day)', '({n} days)', contents.days)}}</span></p>
</header>
% if not s['count']:
<p>{{_('No entries on these days.')}}</p>
% else:
<section class="report-part keep">
<h2>{{_('In short')}}</h2>
<ul class="figures">
  <li><span class="figure">{{i18n.number(s['days_logged'])}}</span> {{n_('of {n} day logged', 'of {n} days logged', contents.days)}}</li>
  <li><span class="figure">{{i18n.number(s['count'])}}</span> {{n_('entry', 'entries', s['count'])}}</li>
  <li><span class="figure">{{!said.mood(s['average'], 2)}}</span> {{_('average mood')}}</li>
</ul>
</section>
% if over_time:
<section class="report-part keep">
<h2>{{_('Mood over time')}}</h2>
<div class="card">{{!over_time}}
<p class="chart-key"><span class="key-item"><span class="key week" aria-hidden="true"></span> {{_('weekly average')}}</span> <span class="key-item"><span class="key month" aria-hidden="true"></span> {{_('monthly average')}}</span></p>
</div>
</section>
% end
<div class="chart-grid">
  <section class="report-part keep"><h2>{{_('Mood distribution')}}</h2><div class="card">{{!distribution}}
  <p class="chart-key"><span>{{!', '.join(_html('<bdi dir="auto">{label}</bdi>: {n}', label=labels[level], n=i18n.number(s['distribution'][str(level)])) for level in range(5, 0, -1))}}</span></p></div></section>
  <section class="report-part keep"><h2>{{_('By weekday')}}</h2><div class="card">{{!weekday}}
  <p class="chart-key"><span>{{!_('Above the line: better than the average ({mood}); below: worse. Days with fewer than 3 entries are left empty.', mood=said.mood(s['average'], 1))}}</span></p></div></section>
</div>
<section class="report-part">
<h2>{{_('Activities with the clearest difference')}}</h2>
% acts = figures['activities']
% if acts:
<p class="muted">{{n_('Average mood on days with each activity and without it. {shown} of {n} activity logged had at least {days} days each way; the largest differences either way are shown.', 'Average mood on days with each activity and without it. {shown} of {n} activities logged had at least {days} days each way; the largest differences either way are shown.', figures['activities_logged'], shown=i18n.number(figures['activities_with_evidence']), days=i18n.number(figures['needed_days']))}}</p>
<div class="table-wrap card keep" role="region" aria-labelledby="report-activities" tabindex="0">
<table class="data">
  <caption class="skip" id="report-activities">{{_('Average mood with and without each activity')}}</caption>
  <thead><tr><th scope="col">{{_('Activity')}}</th><th scope="col" class="num">{{_('With')}}</th><th scope="col" class="num">{{_('Without')}}</th><th scope="col" class="num">{{_('Difference')}}</th></tr></thead>
  <tbody>
  % for row in acts:
  <tr>
    <th scope="row" dir="auto">{{row['activity']}}</th>
    <td class="num">{{!said.mood(row['average_with'], named=False)}} <span class="muted">{{_('({days} d)', days=i18n.number(row['days_with']))}}</span></td>
    <td class="num">{{!said.mood(row['average_without'], named=False)}} <span class="muted">{{_('({days} d)', days=i18n.number(row['days_without']))}}</span></td>
    % diff = said.decimal(row['difference'], 2, sign=True)
    % way = {'+': ('up', ' ▲'), '-': ('down', ' ▼')}.get(diff[0], ('', ''))
    <td class="num {{way[0]}}">{{diff + way[1]}}</td>
  </tr>
  % end
  </tbody>
</table>
</div>
<p class="chart-key">{{_('d: logged days with the activity and without it. A pattern in the entries, not proof of a cause.')}}</p>
% elif figures['activities_logged']:
<p class="muted">{{n_('No activity had enough days to compare yet: each needs at least {n} logged day with it and as many without.', 'No activity had enough days to compare yet: each needs at least {n} logged days with it and as many without.', figures['needed_days'])}}</p>
% else:
<p class="muted">{{_('No activities logged on these days.')}}</p>
% end
</section>
<section class="report-part">
<h2>{{_('What stands out')}}</h2>
% if insight['busy']:
<p class="muted" role="status">{{insight['busy']}}</p>
% elif insight['days'] < insight['needed_days']:
<p class="muted">{{n_('Not enough evidence yet: {days} of {n} logged day. The insights compare days, so they need a month or so of them.', 'Not enough evidence yet: {days} of {n} logged days. The insights compare days, so they need a month or so of them.', insight['needed_days'], days=i18n.number(insight['days']))}}</p>
% elif not insight['findings']:
<p>{{n_('Checked {n} comparison together; none stands out.', 'Checked {n} comparisons together; none stands out.', insight['checked'])}}</p>
% else:
<p class="muted">{{n_('Checked {n} comparison together; these stand out most. Each is a pattern in the entries, not proof.', 'Checked {n} comparisons together; these stand out most. Each is a pattern in the entries, not proof.', insight['checked'])}}</p>
<ul class="report-findings">
  % for f in insight['findings']:
  <li class="keep"><strong>{{!f['title']}}</strong> <span class="tag muted">{{f['kind']}}</span><br>{{!f['sentence']}}</li>
  % end
</ul>
% end
</section>
% if figures['metrics']:
<section class="report-part">
<h2>{{_('Metrics')}}</h2>
<div class="table-wrap card keep" role="region" aria-labelledby="report-metrics" tabindex="0">
<table class="data">
  <caption class="skip" id="report-metrics">{{_('Each metric on these days')}}</caption>
  <thead><tr><th scope="col">{{_('Metric')}}</th><th scope="col" class="num">{{_('Entries')}}</th><th scope="col" class="num">{{_('Average')}}</th><th scope="col" class="num">{{_('Lowest – highest')}}</th></tr></thead>
  <tbody>
  % for m in figures['metrics']:
  <tr>
    <th scope="row"><span dir="auto">{{m['name']}}</span>{{!' <span class="muted" dir="auto">(' + helpers.escape(m['unit']) + ')</span>' if m['unit'] else ''}}</th>
    <td class="num">{{i18n.number(m['entries'])}}</td>
    <td class="num">{{helpers.shown_number(round(m['mean'], 2), i18n)}}</td>
    <td class="num">{{helpers.shown_number(m['lowest'], i18n)}} – {{helpers.shown_number(m['highest'], i18n)}}</td>
  </tr>
  % end
  </tbody>
</table>
</div>
</section>
% end
% if contents.with_entries:
<section class="report-part report-entries">
<h2>{{_('Entries day by day')}}</h2>
  % if entries_total > sum(len(d.entries) for d in days):
<p class="muted">{{n_('The latest {shown} of {n} entry; choose fewer days to list them all.', 'The latest {shown} of {n} entries; choose fewer days to list them all.', entries_total, shown=i18n.number(sum(len(d.entries) for d in days)))}}</p>
  % end
  % for day in days:
<section class="report-day" aria-labelledby="day-{{day.date}}">
  <h3 id="day-{{day.date}}">{{i18n.day(day.date, 'yMMMMEEEEd')}}</h3>
  <ul class="report-day-entries">
    % for entry in day.entries:
    <li class="report-entry">
      <p class="entry-head"><span class="time">{{helpers.clock_time(entry, i18n)}}</span> <span class="badge lv{{entry['mood']}}">{{!helpers.face(entry['mood'], 16)}} <span dir="auto">{{entry['mood_label']}}</span></span>
      % if entry['activities']:
      <span class="report-activities">· {{!', '.join('<bdi dir="auto">' + helpers.escape(name) + '</bdi>' for name in entry['activities'])}}</span>
      % end
      </p>
      % if entry['note_title']:
      <p class="title" dir="auto">{{entry['note_title']}}</p>
      % end
      % if entry['note']:
      <p class="note" dir="auto">{{entry['note']}}</p>
      % end
      % if entry['metrics']:
      <p class="meta">{{!' · '.join(_html('<bdi dir="auto">{name}</bdi>: {value}', name=name, value=helpers.shown_number(value, i18n)) for name, value in entry['metrics'].items())}}</p>
      % end
      % if contents.with_photos and entry['photos']:
      <ul class="thumbs" aria-label="{{_('Photos')}}">
        % for i, photo in enumerate(entry['photos']):
        <li><img src="{{thumb_url(photo)}}" alt="{{_('Photo {number} of {count}', number=i18n.number(i + 1), count=i18n.number(len(entry['photos'])))}}" width="96" height="96" loading="lazy"></li>
        % end
      </ul>
      % end
    </li>
    % end
  </ul>
</section>
  % end
</section>
% end
% end
<p class="report-foot muted">{{_('Made with k-mood from the entries as they were when this page was opened.')}}</p>
</article>
