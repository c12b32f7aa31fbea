% rebase('layout.tpl', title=title)
<h1>{{title}}</h1>
<nav class="day-nav" aria-label="{{_('Days with entries')}}">
  % if before:
  <a class="button secondary" href="/days/{{before.isoformat()}}" rel="prev"><span aria-hidden="true">‹</span> {{!_html('<span class="weekday">{weekday} </span>{day}<span class="skip">: the day before with entries</span>', weekday=before_words[0], day=before_words[1])}}</a>
  % else:
  <span></span>
  % end
  % if after:
  <a class="button secondary" href="/days/{{after.isoformat()}}" rel="next">{{!_html('<span class="weekday">{weekday} </span>{day}<span class="skip">: the next day with entries</span>', weekday=after_words[0], day=after_words[1])}} <span aria-hidden="true">›</span></a>
  % end
</nav>
<p class="muted day-facts">{{n_('{n} entry', '{n} entries', count)}} · <a href="{{month['href']}}">{{month['long']}}</a> · <a href="/calendar?year={{day.year}}">{{_('Year {year}', year=day.year)}}</a></p>
% if found:
<ul class="entries">
  % for entry in found:
  % include('_entry.tpl', entry=entry, show_time=True)
  % end
</ul>
% else:
<p class="muted">{{_('Nothing logged on this day.')}}</p>
% end
% if older:
<p class="pager"><a class="button secondary" href="{{older}}">{{_('Earlier entries of this day')}}</a></p>
% end
