% rebase('layout.tpl', title=_('History'))
<h1>{{_('History')}}</h1>
<details class="card filter-panel"{{' open' if errors else ''}}>
  % said = [('<span dir="auto">%s</span>' if own else '%s') % helpers.escape(text) for text, own in summary]
  <summary><span class="summary-line">{{_('Search and filter')}} <span class="muted">{{!'· ' + ' · '.join(said) if said else ''}}</span></span></summary>
  <form method="get" action="/entries" class="filters" role="search">
    <label>{{_('Search')}} <input type="search" name="q" value="{{wanted['q']}}" placeholder="{{_('a word from a note, or an activity')}}"></label>
    <div class="row">
      <label>{{_('From')}} <input type="date" name="from" value="{{wanted['from']}}"></label>
      <label>{{_('To')}} <input type="date" name="to" value="{{wanted['to']}}"></label>
    </div>
    <fieldset>
      <legend>{{_('Mood')}}</legend>
      <div class="moodpick">
      % for level in (5, 4, 3, 2, 1):
        <label class="inline"><input type="checkbox" name="mood" value="{{level}}"{{' checked' if str(level) in moods else ''}}> <span dir="auto">{{labels[level]}}</span></label>
      % end
      </div>
    </fieldset>
    % if groups:
    <label>{{_('Activity')}}
      <select name="activity">
        <option value="">{{_('Any')}}</option>
        % for group, members in groups:
          % for activity in members:
          <option value="{{activity['name']}}"{{' selected' if activity['name'] == wanted['activity'] else ''}} dir="auto">{{activity['name']}}</option>
          % end
        % end
      </select>
    </label>
    % end
    <div class="actions">
      <button type="submit">{{_('Show')}}</button>
      % if filtered:
      <a href="/entries">{{_('Clear filters')}}</a>
      % end
    </div>
  </form>
</details>
% if years:
<details class="card months">
  <summary>{{_('Jump to a month')}}</summary>
  % for year in years:
  <h2 class="month-year">{{year['year']}} <span class="muted">{{n_('{n} entry', '{n} entries', year['total'])}}</span></h2>
  <ul class="month-list">
    % for month in year['months']:
    % if month['count']:
    <li><a href="{{month['href']}}"{{!' aria-current="page"' if summary and summary[0][0] == month['long'] else ''}}><span aria-hidden="true">{{month['name']}}</span> <span class="count" aria-hidden="true">{{i18n.number(month['count'])}}</span><span class="skip">{{n_('{month}: {n} entry', '{month}: {n} entries', month['count'], month=month['long'])}}</span></a></li>
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
<p class="muted">{{_('No entries match.') if filtered else _('No entries yet. Log your first one on the Log tab.')}}</p>
% end
% for day, found in days:
<h2 class="day"><a href="/days/{{day}}">{{helpers.day_title(day, today, i18n)}}</a></h2>
<ul class="entries">
  % for entry in found:
  % include('_entry.tpl', entry=entry, show_time=True)
  % end
</ul>
% end
% if older:
<p class="pager"><a class="button secondary" href="{{older}}">{{_('Older entries')}}</a></p>
% end
