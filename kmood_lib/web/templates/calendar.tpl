% rebase('layout.tpl', title='Year in pixels %d' % year)
<div class="year-nav">
  % if prev_year:
  <a class="button secondary" href="/calendar?year={{prev_year}}" aria-label="Previous year, {{prev_year}}">‹ {{prev_year}}</a>
  % end
  <h1>{{year}}</h1>
  % if next_year:
  <a class="button secondary" href="/calendar?year={{next_year}}" aria-label="Next year, {{next_year}}">{{next_year}} ›</a>
  % end
</div>
<p class="muted">
% if logged:
  {{logged}} day{{'s' if logged != 1 else ''}} logged, average mood {{!helpers.average_mood(average, labels, 1)}}. Tap a day to see its entries.
% elif last_day and last_day.year != year:
  Nothing logged in {{year}}. Your last entry is from {{last_day.strftime('%B %Y')}}: <a href="/calendar?year={{last_day.year}}">see {{last_day.year}}</a>.
% else:
  Nothing logged in {{year}}.
% end
</p>
<div class="table-wrap">
<table class="pixels">
  <caption class="skip">Average mood per day in {{year}}: one column per month, one row per day of the month</caption>
  <thead><tr><td class="blank"></td>
  % for month in months:
    <th scope="col">{{month[0]}}<span class="skip">{{month[1:]}}</span></th>
  % end
  </tr></thead>
  <tbody>
  % for day, row in enumerate(grid, start=1):
  <tr><th scope="row">{{day}}</th>
    % for cell in row:
      % if cell['kind'] == 'logged':
    <td class="logged lv{{cell['level']}}"><a href="/days/{{cell['date'].isoformat()}}" title="{{cell['date'].isoformat()}}: {{labels[cell['level']]}} ({{'%.1f' % cell['average']}}), {{cell['count']}} entr{{'y' if cell['count'] == 1 else 'ies'}}"><span class="skip">{{cell['date'].strftime('%d %b')}}: {{labels[cell['level']]}}, {{cell['count']}} entr{{'y' if cell['count'] == 1 else 'ies'}}</span></a></td>
      % elif cell['kind'] == 'blank':
    <td class="blank"></td>
      % else:
    <td class="{{cell['kind']}}"></td>
      % end
    % end
  </tr>
  % end
  </tbody>
</table>
</div>
<ul class="legend" aria-label="Legend">
  % for level in (5, 4, 3, 2, 1):
  <li><span class="lv{{level}}"></span>{{labels[level]}}</li>
  % end
  <li><span class="none"></span>nothing logged</li>
  <li><span class="future"></span>still to come</li>
</ul>
