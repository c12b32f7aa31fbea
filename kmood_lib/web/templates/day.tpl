% rebase('layout.tpl', title=title)
<h1>{{title}}</h1>
<nav class="day-nav" aria-label="Days with entries">
  % if before:
  <a class="button secondary" href="/days/{{before.isoformat()}}" rel="prev"><span aria-hidden="true">‹</span> <span class="weekday">{{before_words[0]}} </span>{{before_words[1]}}<span class="skip">: the day before with entries</span></a>
  % else:
  <span></span>
  % end
  % if after:
  <a class="button secondary" href="/days/{{after.isoformat()}}" rel="next"><span class="weekday">{{after_words[0]}} </span>{{after_words[1]}}<span class="skip">: the next day with entries</span> <span aria-hidden="true">›</span></a>
  % end
</nav>
<p class="muted day-facts">{{count}} entr{{'y' if count == 1 else 'ies'}} · <a href="{{month['href']}}">{{month['long']}}</a> · <a href="/calendar?year={{day.year}}">Year {{day.year}}</a></p>
% if found:
<ul class="entries">
  % for entry in found:
  % include('_entry.tpl', entry=entry, show_time=True)
  % end
</ul>
% else:
<p class="muted">Nothing logged on this day.</p>
% end
% if older:
<p class="pager"><a class="button secondary" href="{{older}}">Earlier entries of this day</a></p>
% end
