% rebase('layout.tpl', title=_('Year in pixels {year}', year=year))
<div class="year-nav">
  % if prev_year:
  <a class="button secondary" href="/calendar?year={{prev_year}}" aria-label="{{_('Previous year, {year}', year=prev_year)}}">‹ {{prev_year}}</a>
  % end
  <h1>{{year}}</h1>
  % if next_year:
  <a class="button secondary" href="/calendar?year={{next_year}}" aria-label="{{_('Next year, {year}', year=next_year)}}">{{next_year}} ›</a>
  % end
</div>
<p class="muted">
% if logged:
  {{!n_('{n} day logged, average mood {average}. Tap a day to see its entries.', '{n} days logged, average mood {average}. Tap a day to see its entries.', logged, average=helpers.average_mood(average, labels, 1, i18n=i18n))}}
% elif last_day and last_day.year != year:
  {{!_html('Nothing logged in {year}. Your last entry is from {month}: <a href="/calendar?year={last}">see {last}</a>.', year=year, month=helpers.date_text(i18n, last_day, 'yMMMM'), last=last_day.year)}}
% else:
  {{_('Nothing logged in {year}.', year=year)}}
% end
</p>
<div class="table-wrap">
<table class="pixels">
  <caption class="skip">{{_('Average mood per day in {year}: one column per month, one row per day of the month', year=year)}}</caption>
  <thead><tr><td class="blank"></td>
  % for month in range(1, 13):
    <th scope="col"><span aria-hidden="true">{{i18n.month_name(month, 'narrow')}}</span><span class="skip">{{i18n.month_name(month)}}</span></th>
  % end
  </tr></thead>
  <tbody>
  % for day, row in enumerate(grid, start=1):
  <tr><th scope="row">{{i18n.number(day)}}</th>
    % for cell in row:
      % if cell['kind'] == 'logged':
      % said = n_('{day}: <span dir="auto">{mood}</span>, {n} entry', '{day}: <span dir="auto">{mood}</span>, {n} entries', cell['count'], day=helpers.date_text(i18n, cell['date'], 'MMMd'), mood=helpers.escape(labels[cell['level']]))
    <td class="logged lv{{cell['level']}}"><a href="/days/{{cell['date'].isoformat()}}" title="{{n_('{day}: average mood {average}, {n} entry', '{day}: average mood {average}, {n} entries', cell['count'], day=helpers.date_text(i18n, cell['date'], 'yMMMd'), average=i18n.decimal(cell['average'], 1))}}"><span class="skip">{{!said}}</span></a></td>
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
<ul class="legend" aria-label="{{_('Legend')}}">
  % for level in (5, 4, 3, 2, 1):
  <li><span class="lv{{level}}"></span><span dir="auto">{{labels[level]}}</span></li>
  % end
  <li><span class="none"></span>{{_('nothing logged')}}</li>
  <li><span class="future"></span>{{_('still to come')}}</li>
</ul>
