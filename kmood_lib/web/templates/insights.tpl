% rebase('layout.tpl', title='Insights')
% def day(iso):
%   from datetime import date
%   return date.fromisoformat(iso).strftime('%d %b %Y').lstrip('0')
% end
% def date_month(iso):
%   from datetime import date
%   return date.fromisoformat(iso[:7] + '-01').strftime('%B %Y')
% end
<h1>Insights</h1>
<p class="muted"><a href="/stats?range={{current}}">‹ Stats</a></p>
<nav class="ranges" aria-label="Time range">
% for key, (name, _days) in ranges.items():
  <a href="/insights?range={{key}}" aria-current="{{'page' if key == current else 'false'}}">{{name}}</a>
% end
</nav>
% if busy:
<p class="card busy" role="status">{{busy}}</p>
<p><a href="/insights?range={{current}}">Try again</a></p>
% else:
% days, findings = found['days'], found['findings']
% if found.get('updating'):
<p class="notice" role="status" id="insights-updating">Updating: these were worked out before your latest changes. The new ones are on their way; <a href="/insights?range={{current}}">reload</a> in a moment to see them.</p>
% elif found.get('outdated'):
<p class="alert" role="status" id="insights-outdated">These were worked out before your latest changes, and working out new ones failed just now; k-mood tries again later.</p>
% end
% if not days:
<p class="muted">No entries in this range yet. Log a few days and come back.</p>
% elif days < found['needed_days']:
<p>Not enough evidence yet: <strong>{{days}} of {{found['needed_days']}}</strong> logged days in this range. Insights compare days, so they need a month or so of them.</p>
% else:
<p>{{range_name}}: <strong>{{days}}</strong> logged days from {{day(found['range']['from'])}} to {{day(found['range']['to'])}}. Checked <strong>{{found['checked']}}</strong> comparison{{'' if found['checked'] == 1 else 's'}} together; <strong>{{len(findings) or 'none'}}</strong> stand{{'s' if len(findings) == 1 else ''}} out.</p>
% if findings:
<p class="muted">Standing out means a difference of at least {{'%.1f' % limits.min_effect}} mood points (for numbers, a rank correlation of at least {{'%.1f' % limits.min_rho}}) whose likely range leaves out zero, after allowing for checking {{found['checked']}} things at once. The clearest come first.</p>
% end
% end
% if findings:
<h2>What goes with your better and worse days</h2>
% shown = found.get('open_findings', 5)
% for part, cards in (('open', list(zip(findings, charts))[:shown]), ('folded', list(zip(findings, charts))[shown:])):
  % if not cards:
  %   continue
  % end
  % if part == 'folded':
<details class="card more-findings">
  <summary>{{len(cards)}} more finding{{'' if len(cards) == 1 else 's'}}, weaker</summary>
  % end
<ul class="findings">
  % for f, chart in cards:
  <li class="card finding">
    % if f['kind'] == 'change':
    <h3>Around {{day(f['started'])}} <span class="tag">change in mood</span></h3>
    % else:
    <h3>{{f['name'] if f['kind'] != 'weather' or f['name'] == 'temperature' else f['name'].capitalize()}}
      % if f['also']:
    <span class="tag">the day and the day after</span>
      % elif f['lag']:
    <span class="tag">the day after</span>
      % end
    <span class="tag muted">{{f['kind']}}</span></h3>
    % end
    <p dir="auto">{{f['sentence']}}</p>
    % if f['kind'] == 'change':
    <p class="means">From then {{!helpers.average_mood(f['mean_with'], labels, 1)}} · before {{!helpers.average_mood(f['mean_without'], labels, 1)}}</p>
    % elif f['measure'] == 'points':
    <p class="means">{{'The day after' if f['lag'] else 'With it'}} {{!helpers.average_mood(f['mean_with'], labels, 1)}} · {{'other days' if f['lag'] else 'without'}} {{!helpers.average_mood(f['mean_without'], labels, 1)}}</p>
      % for after in f['also']:
    <p class="means">The day after {{!helpers.average_mood(after['mean_with'], labels, 1)}} · other days {{!helpers.average_mood(after['mean_without'], labels, 1)}}</p>
      % end
    % end
    {{!chart}}
  </li>
  % end
</ul>
  % if part == 'folded':
</details>
  % end
% end
% elif days >= found['needed_days']:
<p class="card">Nothing stands out clearly yet. That is an answer too: none of the {{found['checked']}} comparisons showed a difference of at least {{'%.1f' % limits.min_effect}} points with a likely range clear of zero. More days make smaller patterns visible.</p>
% end
% if days >= found['needed_days']:
<details class="card method">
  <summary>How is this computed?</summary>
  <p>Each logged day counts once, with the mean of its entries; days without entries are left out, never counted as zero. For each activity, place, artist and kind of weather, k-mood compares the days that had it with the days that did not, on the same day and on the day after. For numbers (your metrics, the temperature) it uses the rank correlation with the day's mood, and a slope in mood points per unit.</p>
  <p>How sure: the likely range is a 95 % interval from {{limits.resamples}} resamples of your own days, taken in runs of about {{'%g' % limits.mean_block}} days (a good week is a run of good days, so single days would make every difference look surer than it is). Testing many things finds a few by chance, so all {{found['checked']}} comparisons are corrected together (Benjamini–Hochberg, false discovery rate {{'%g' % (limits.fdr * 100)}} %).</p>
  <p>A finding needs at least {{limits.min_each}} days with and {{limits.min_each}} without, a difference of at least {{'%.1f' % limits.min_effect}} mood points (or a rank correlation of at least {{'%.1f' % limits.min_rho}}), a likely range that does not include zero, and to pass the correction. These are patterns in what you logged: something else may drive both.</p>
  % if findings:
  <div class="table-wrap" role="region" aria-labelledby="figures-caption" tabindex="0">
  <table class="data">
    <caption class="skip" id="figures-caption">The figures behind each finding</caption>
    <thead><tr><th scope="col">Finding</th><th scope="col" class="num">Estimate</th><th scope="col" class="num">p</th><th scope="col" class="num">q</th></tr></thead>
    <tbody>
    % for f in findings:
    %   for row in [f] + f['also']:
    <tr><th scope="row">{{('Around ' + day(f['started'])) if f['kind'] == 'change' else f['name']}}{{' (day after)' if row['lag'] else ''}}</th><td class="num">{{'%+.2f' % row['effect']}}{{'' if f['measure'] == 'points' else ' ρ'}}</td><td class="num">{{'%.4f' % row['p']}}</td><td class="num">{{'%.4f' % row['q']}}</td></tr>
    %   end
    % end
    </tbody>
  </table>
  </div>
  % end
</details>
% end
% if found['not_enough']:
% rows = found['not_enough']
<details class="card">
  <summary>Not enough evidence yet ({{len(rows)}})</summary>
  <ul class="plain">
  % for row in rows[:40]:
    <li dir="auto">{{row['sentence']}}</li>
  % end
  </ul>
  % if len(rows) > 40:
  <p class="muted">And {{len(rows) - 40}} more with even fewer days.</p>
  % end
</details>
% end
% if found['on_this_day']:
<h2>On this day</h2>
% shown = None
% for item in found['on_this_day']:
  % if item['years_ago'] != shown:
    % if shown is not None:
</ul>
    % end
    % shown = item['years_ago']
<h3 class="years-ago">{{shown}} year{{'' if shown == 1 else 's'}} ago</h3>
<ul class="entries">
  % end
  % include('_entry.tpl', entry=item['entry'], show_time=False, actions=False)
% end
</ul>
% end
% weeks, months = found['weeks'], found['months']
% if weeks['best'] or months['best']:
<h2>Best and worst stretches</h2>
<div class="chart-grid">
% for title, ranked, fmt in (('Weeks', weeks, 'week of %s'), ('Months', months, '%s')):
  % if ranked['best']:
  <section><h3>{{title}}</h3><div class="card table-wrap" role="region" aria-labelledby="{{title.lower()}}-caption" tabindex="0">
    <table class="data">
      <caption class="skip" id="{{title.lower()}}-caption">{{title}} by mean mood, with at least {{ranked['least_days']}} logged days</caption>
      <thead><tr><th scope="col">{{title[:-1]}}</th><th scope="col" class="num">Mean</th><th scope="col" class="num">Days</th></tr></thead>
      <tbody>
      % for label, rows in (('Best', ranked['best']), ('Worst', ranked['worst'])):
        % for r in rows:
      <tr><th scope="row"><span class="muted">{{label}}:</span> {{fmt % (day(r['start']) if title == 'Weeks' else date_month(r['start']))}}</th><td class="num">{{!helpers.average_mood(r['average'], labels, named=False)}}</td><td class="num">{{r['days']}}</td></tr>
        % end
      % end
      </tbody>
    </table>
  </div></section>
  % end
% end
</div>
% end
% if stability:
<h2>Stability</h2>
<div class="card">{{!stability}}
<p class="chart-key">How far your mood moved from one logged day to the next, on average, by month: lower is steadier. {{steadiness or ''}}</p></div>
% end
% end
