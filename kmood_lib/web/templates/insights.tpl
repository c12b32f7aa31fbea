% rebase('layout.tpl', title=_('Insights'))
<h1>{{_('Insights')}}</h1>
<p class="muted"><a href="/stats?range={{current}}">{{_('‹ Stats')}}</a> · <a href="/report?range={{current}}">{{_('A report of these days, to print or share ›')}}</a></p>
<nav class="ranges" aria-label="{{_('Time range')}}">
% for key, (name, days) in ranges.items():
  <a href="/insights?range={{key}}" aria-current="{{'page' if key == current else 'false'}}">{{_(name)}}</a>
% end
</nav>
% if busy:
<p class="card busy" role="status">{{busy}}</p>
<p><a href="/insights?range={{current}}">{{_('Try again')}}</a></p>
% else:
% days, findings = found['days'], found['findings']
% if found.get('updating'):
<p class="notice" role="status" id="insights-updating">{{!_html('Updating: these were worked out before your latest changes. The new ones are on their way; <a href="{link}">reload</a> in a moment to see them.', link='/insights?range=' + current)}}</p>
% elif found.get('outdated'):
<p class="alert" role="status" id="insights-outdated">{{_('These were worked out before your latest changes, and working out new ones failed just now; k-mood tries again later.')}}</p>
% end
% if not days:
<p class="muted">{{_('No entries in this range yet. Log a few days and come back.')}}</p>
% elif days < found['needed_days']:
<p>{{!n_('Not enough evidence yet: <strong>{days} of {n}</strong> logged day in this range. Insights compare days, so they need a month or so of them.', 'Not enough evidence yet: <strong>{days} of {n}</strong> logged days in this range. Insights compare days, so they need a month or so of them.', found['needed_days'], days=i18n.number(days))}}</p>
% else:
% standing = n_('<strong>{n}</strong> stands out.', '<strong>{n}</strong> stand out.', len(findings)) if findings else _html('<strong>none</strong> stand out.')
<p>{{!n_('{range}: <strong>{n}</strong> logged day from {first} to {last}.', '{range}: <strong>{n}</strong> logged days from {first} to {last}.', days, range=_(range_name), first=said.day(found['range']['from']), last=said.day(found['range']['to']))}} {{!n_('Checked <strong>{n}</strong> comparison together; {standing}', 'Checked <strong>{n}</strong> comparisons together; {standing}', found['checked'], standing=standing)}}</p>
% if findings:
<p class="muted">{{n_('Standing out means a difference of at least {effect} mood points (for numbers, a rank correlation of at least {rho}) whose likely range leaves out zero, after allowing for checking {n} thing at once. The clearest come first.', 'Standing out means a difference of at least {effect} mood points (for numbers, a rank correlation of at least {rho}) whose likely range leaves out zero, after allowing for checking {n} things at once. The clearest come first.', found['checked'], effect=said.decimal(limits.min_effect), rho=said.decimal(limits.min_rho))}}</p>
% end
% end
% if findings:
<h2>{{_('What goes with your better and worse days')}}</h2>
% shown = found.get('open_findings', 5)
% cards = list(zip(findings, charts, sentences, titles))
% for part, group in (('open', cards[:shown]), ('folded', cards[shown:])):
  % if not group:
  %   continue
  % end
  % if part == 'folded':
<details class="card more-findings">
  <summary>{{n_('{n} more finding, weaker', '{n} more findings, weaker', len(group))}}</summary>
  % end
<ul class="findings">
  % for f, chart, sentence, title in group:
  <li class="card finding">
    % if f['kind'] == 'change':
    <h3>{{!title}} <span class="tag">{{_('change in mood')}}</span></h3>
    % else:
    <h3>{{!title}}
      % if f['also']:
    <span class="tag">{{_('the day and the day after')}}</span>
      % elif f['lag']:
    <span class="tag">{{_('the day after')}}</span>
      % end
    <span class="tag muted">{{_(kinds.get(f['kind'], f['kind']))}}</span></h3>
    % end
    <p class="sentence">{{!sentence}}</p>
    % if f['kind'] == 'change':
    <p class="means">{{!_('From then {after} · before {before}', after=said.mood(f['mean_with'], 1), before=said.mood(f['mean_without'], 1))}}</p>
    % elif f['measure'] == 'points':
      % if f['lag']:
    <p class="means">{{!_('The day after {after} · other days {others}', after=said.mood(f['mean_with'], 1), others=said.mood(f['mean_without'], 1))}}</p>
      % else:
    <p class="means">{{!_('With it {with_it} · without {without}', with_it=said.mood(f['mean_with'], 1), without=said.mood(f['mean_without'], 1))}}</p>
      % end
      % for after in f['also']:
    <p class="means">{{!_('The day after {after} · other days {others}', after=said.mood(after['mean_with'], 1), others=said.mood(after['mean_without'], 1))}}</p>
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
<p class="card">{{n_('Nothing stands out clearly yet. That is an answer too: none of the {n} comparison showed a difference of at least {effect} points with a likely range clear of zero. More days make smaller patterns visible.', 'Nothing stands out clearly yet. That is an answer too: none of the {n} comparisons showed a difference of at least {effect} points with a likely range clear of zero. More days make smaller patterns visible.', found['checked'], effect=said.decimal(limits.min_effect))}}</p>
% end
% if days >= found['needed_days']:
<details class="card method">
  <summary>{{_('How is this computed?')}}</summary>
  <p>{{_('Each logged day counts once, with the mean of its entries; days without entries are left out, never counted as zero. For each activity, place, artist and kind of weather, k-mood compares the days that had it with the days that did not, on the same day and on the day after. For numbers (your metrics, the temperature) it uses the rank correlation with the day\'s mood, and a slope in mood points per unit.')}}</p>
  <p>{{n_('How sure: the likely range is a 95 % interval from {resamples} resamples of your own days, taken in runs of about {block} days (a good week is a run of good days, so single days would make every difference look surer than it is). Testing many things finds a few by chance, so all {n} comparison is corrected together (Benjamini–Hochberg, false discovery rate {fdr} %).', 'How sure: the likely range is a 95 % interval from {resamples} resamples of your own days, taken in runs of about {block} days (a good week is a run of good days, so single days would make every difference look surer than it is). Testing many things finds a few by chance, so all {n} comparisons are corrected together (Benjamini–Hochberg, false discovery rate {fdr} %).', found['checked'], resamples=i18n.number(limits.resamples), block=i18n.number(limits.mean_block), fdr=i18n.number(round(limits.fdr * 100, 6)))}}</p>
  <p>{{n_('A finding needs at least {n} day with and {n} without, a difference of at least {effect} mood points (or a rank correlation of at least {rho}), a likely range that does not include zero, and to pass the correction. These are patterns in what you logged: something else may drive both.', 'A finding needs at least {n} days with and {n} without, a difference of at least {effect} mood points (or a rank correlation of at least {rho}), a likely range that does not include zero, and to pass the correction. These are patterns in what you logged: something else may drive both.', limits.min_each, effect=said.decimal(limits.min_effect), rho=said.decimal(limits.min_rho))}}</p>
  % if findings:
  <div class="table-wrap" role="region" aria-labelledby="figures-caption" tabindex="0">
  <table class="data">
    <caption class="skip" id="figures-caption">{{_('The figures behind each finding')}}</caption>
    <thead><tr><th scope="col">{{_('Finding')}}</th><th scope="col" class="num">{{_('Estimate')}}</th><th scope="col" class="num">{{_('p')}}</th><th scope="col" class="num">{{_('q')}}</th></tr></thead>
    <tbody>
    % for f, title in zip(findings, titles):
    %   for row in [f] + f['also']:
    <tr><th scope="row">{{!_('{name} (day after)', name=title) if row['lag'] else title}}</th><td class="num">{{said.decimal(row['effect'], 2, sign=True)}}{{'' if f['measure'] == 'points' else ' ρ'}}</td><td class="num">{{said.decimal(row['p'], 4)}}</td><td class="num">{{said.decimal(row['q'], 4)}}</td></tr>
    %   end
    % end
    </tbody>
  </table>
  </div>
  % end
</details>
% end
% if found['not_enough']:
<details class="card">
  <summary>{{_('Not enough evidence yet ({count})', count=i18n.number(len(not_enough)))}}</summary>
  <ul class="plain">
  % for sentence in not_enough[:40]:
    <li>{{!sentence}}</li>
  % end
  </ul>
  % if len(not_enough) > 40:
  <p class="muted">{{n_('And {n} more with even fewer days.', 'And {n} more with even fewer days.', len(not_enough) - 40)}}</p>
  % end
</details>
% end
% if found['on_this_day']:
<h2>{{_('On this day')}}</h2>
% shown = None
% for item in found['on_this_day']:
  % if item['years_ago'] != shown:
    % if shown is not None:
</ul>
    % end
    % shown = item['years_ago']
<h3 class="years-ago">{{n_('{n} year ago', '{n} years ago', shown)}}</h3>
<ul class="entries">
  % end
  % include('_entry.tpl', entry=item['entry'], show_time=False, actions=False)
% end
</ul>
% end
% weeks, months = found['weeks'], found['months']
% if weeks['best'] or months['best']:
<h2>{{_('Best and worst stretches')}}</h2>
<div class="chart-grid">
% for key, ranked in (('weeks', weeks), ('months', months)):
  % if ranked['best']:
  % least = ranked['least_days']
  <section><h3>{{_('Weeks') if key == 'weeks' else _('Months')}}</h3><div class="card table-wrap" role="region" aria-labelledby="{{key}}-caption" tabindex="0">
    <table class="data">
      <caption class="skip" id="{{key}}-caption">{{n_('Weeks by mean mood, with at least {n} logged day', 'Weeks by mean mood, with at least {n} logged days', least) if key == 'weeks' else n_('Months by mean mood, with at least {n} logged day', 'Months by mean mood, with at least {n} logged days', least)}}</caption>
      <thead><tr><th scope="col">{{_('Week') if key == 'weeks' else _('Month')}}</th><th scope="col" class="num">{{_('Mean')}}</th><th scope="col" class="num">{{_('Days')}}</th></tr></thead>
      <tbody>
      % for best, rows in ((True, ranked['best']), (False, ranked['worst'])):
        % for r in rows:
      <tr><th scope="row"><span class="muted">{{_('Best:') if best else _('Worst:')}}</span> {{_('week of {date}', date=said.day(r['start'])) if key == 'weeks' else said.month(r['start'])}}</th><td class="num">{{!said.mood(r['average'], named=False)}}</td><td class="num">{{i18n.number(r['days'])}}</td></tr>
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
<h2>{{_('Stability')}}</h2>
<div class="card">{{!stability}}
<p class="chart-key">{{_('How far your mood moved from one logged day to the next, on average, by month: lower is steadier.')}} {{steadiness or ''}}</p></div>
% end
% end
