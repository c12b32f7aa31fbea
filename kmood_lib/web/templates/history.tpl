% rebase('layout.tpl', title='History')
<h1>History</h1>
<details class="card filter-panel"{{' open' if errors else ''}}>
  <summary><span class="summary-line">Search and filter <span class="muted">{{'· ' + ' · '.join(summary) if summary else ''}}</span></span></summary>
  <form method="get" action="/entries" class="filters" role="search">
    <label>Search <input type="search" name="q" value="{{wanted['q']}}" placeholder="a word from a note, or an activity"></label>
    <div class="row">
      <label>From <input type="date" name="from" value="{{wanted['from']}}"></label>
      <label>To <input type="date" name="to" value="{{wanted['to']}}"></label>
    </div>
    <fieldset>
      <legend>Mood</legend>
      <div class="moodpick">
      % for level in (5, 4, 3, 2, 1):
        <label class="inline"><input type="checkbox" name="mood" value="{{level}}"{{' checked' if str(level) in moods else ''}}> {{labels[level]}}</label>
      % end
      </div>
    </fieldset>
    % if groups:
    <label>Activity
      <select name="activity">
        <option value="">Any</option>
        % for group, members in groups:
          % for activity in members:
          <option value="{{activity['name']}}"{{' selected' if activity['name'] == wanted['activity'] else ''}}>{{activity['name']}}</option>
          % end
        % end
      </select>
    </label>
    % end
    <div class="actions">
      <button type="submit">Show</button>
      % if filtered:
      <a href="/entries">Clear filters</a>
      % end
    </div>
  </form>
</details>
% if years:
<details class="card months">
  <summary>Jump to a month</summary>
  % for year in years:
  <h2 class="month-year">{{year['year']}} <span class="muted">{{year['total']}} entr{{'y' if year['total'] == 1 else 'ies'}}</span></h2>
  <ul class="month-list">
    % for month in year['months']:
    % if month['count']:
    <li><a href="{{month['href']}}"{{!' aria-current="page"' if summary and summary[0] == month['long'] else ''}}>{{month['name']}}<span class="skip">{{month['long'][len(month['name']):]}}:</span> <span class="count">{{month['count']}}</span><span class="skip"> entr{{'y' if month['count'] == 1 else 'ies'}}</span></a></li>
    % else:
    <li class="none" aria-hidden="true">{{month['name']}}</li>
    % end
    % end
  </ul>
  % end
</details>
% end
% include('_errors.tpl', errors=errors)
% if not days and not errors:
<p class="muted">{{'No entries match.' if filtered else 'No entries yet. Log your first one on the Log tab.'}}</p>
% end
% for day, found in days:
<h2 class="day"><a href="/days/{{day}}">{{helpers.day_title(day, today)}}</a></h2>
<ul class="entries">
  % for entry in found:
  % include('_entry.tpl', entry=entry, show_time=True)
  % end
</ul>
% end
% if older:
<p class="pager"><a class="button secondary" href="{{older}}">Older entries</a></p>
% end
