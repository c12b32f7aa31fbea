% # The log and edit form, in the order a thumb goes: mood, activities, note, Save. What is
% # used less (the date, templates, the other activities) is one line that opens; new
% # activities are typed after the note when there are many to choose from.
<form method="post" action="{{action}}" class="card entry-form" id="entry-form"{{!' data-outbox enctype="multipart/form-data"' if creating else ''}}{{!' data-now' if creating and not errors and not get('preset') else ''}}>
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="hidden" name="utc_offset" value="{{values.get('utc_offset', '')}}">
  <input type="hidden" name="back" value="{{get('back') or ''}}">
  % if creating:
  <input type="hidden" name="client_id" value="{{values.get('client_id', '')}}">
  <input type="hidden" name="owner" value="{{user.id}}">
  <input type="hidden" name="names_of_metrics" value="{{helpers.json_attr({str(m['id']): m['name'] for m in metrics})}}">
  % end
  <div class="form-head">
    <h1>{{heading}}</h1>
    <details class="when" id="when"{{' open' if 'Date and time' in errors else ''}}>
      <summary><span><span id="when-text">{{when}}</span> · <span class="change">{{!_html('change<span class="skip"> the date and time</span>')}}</span></span></summary>
      <div class="row">
        <label>{{_('Date')}} <input type="date" name="date" value="{{values.get('date', '')}}" required></label>
        <label>{{_('Time')}} <input type="time" name="time" value="{{values.get('time', '')}}"></label>
      </div>
    </details>
  </div>
  % include('_errors.tpl', errors=errors)
  <fieldset>
    <legend>{{_('How are you?')}}</legend>
    <div class="moods">
      % for level in (1, 2, 3, 4, 5):
      % longest = max(len(word) for word in labels[level].split())
      <input type="radio" name="mood" value="{{level}}" id="mood-{{level}}" required{{' checked' if values.get('mood') == str(level) else ''}}>
      <label for="mood-{{level}}" class="lv{{level}}{{' long' if longest > 5 else ''}}{{' longer' if longest > 7 else ''}}">{{!helpers.face(level)}}<span dir="auto">{{labels[level]}}</span></label>
      % end
    </div>
  </fieldset>
  % new_label = _('New activities') if groups or favourites else _('Activities')
  % if groups or favourites:
  <fieldset class="activities">
    <legend>{{_('What have you been up to?')}}</legend>
    % if favourites:
    % include('_chips.tpl', members=favourites)
    <details class="more-activities" data-remember="more">
      <summary>{{n_('{n} more activity', '{n} more activities', sum(len(m) for g, m in groups))}}</summary>
      <input type="search" class="js-only chip-filter" hidden placeholder="{{_('Find an activity')}}" aria-label="{{_('Find an activity')}}" autocomplete="off">
    % end
    % for group, members in groups:
      % if group or len(groups) > 1:
      <details class="activity-group" data-remember="group:{{group or ''}}" open>
        % if group:
        <summary class="group-name"><span dir="auto">{{group}}</span> <span class="count">{{i18n.number(len(members))}}</span></summary>
        % else:
        <summary class="group-name"><span>{{_('Other')}}</span> <span class="count">{{i18n.number(len(members))}}</span></summary>
        % end
        % include('_chips.tpl', members=members)
      </details>
      % else:
      % include('_chips.tpl', members=members)
      % end
    % end
    % if favourites:
    </details>
    % end
  </fieldset>
  % end
  % if not favourites:
  % include('_new_activities.tpl', label=new_label)
  % end
  <div class="note">
    <div class="note-head">
      <label for="note">{{_('Note')}}</label>
      % if creating and get('templates'):
      <details class="use-template">
        <summary>{{_('Use a template')}}</summary>
        <p class="templates" id="templates">
          % for template in templates:
          <a class="chip-link" href="/?template={{template['id']}}" data-title="{{template['note_title']}}" data-note="{{template['note']}}" dir="auto">{{template['name']}}</a>
          % end
        </p>
      </details>
      % end
    </div>
    <textarea id="note" name="note" maxlength="20000" rows="3" dir="auto">{{values.get('note', '')}}</textarea>
    <label class="title">{{_('Title')}} <input name="note_title" value="{{values.get('note_title', '')}}" maxlength="200" dir="auto"></label>
  </div>
  % if favourites:
  % include('_new_activities.tpl', label=new_label)
  % end
  % if metrics:
  <div class="row">
    % for metric in metrics:
    <label><span dir="auto">{{metric['name']}}</span>{{!' (<span dir="auto">%s</span>)' % helpers.escape(metric['unit']) if metric['unit'] else ''}}
      <input type="number" inputmode="decimal" step="any" name="metric_{{metric['id']}}" value="{{values.get('metric_%d' % metric['id'], '')}}"
      % if metric['min'] is not None:
        min="{{helpers.number(metric['min'])}}"
      % end
      % if metric['max'] is not None:
        max="{{helpers.number(metric['max'])}}"
      % end
      >
    </label>
    % end
  </div>
  % end
  % if creating:
  <label>{{_('Photos')}} <span class="muted">{{_('(up to {n}; their location and other hidden details are removed)', n=i18n.number(photo_limits.per_entry))}}</span>
    <input type="file" name="photo" accept="image/jpeg,image/png,image/webp" multiple>
  </label>
  <div class="js-only" hidden id="extras">
    <div class="actions">
      <button type="button" class="secondary" id="use-location">{{_('Use my location')}}</button>
      <span class="muted" id="location-status" role="status"></span>
    </div>
    <input type="hidden" name="lat" id="lat" value="{{values.get('lat', '')}}">
    <input type="hidden" name="lon" id="lon" value="{{values.get('lon', '')}}">
    <div id="now-playing" hidden>
      <p class="muted" id="now-playing-text" role="status"></p>
      <button type="button" class="secondary" id="attach-song">{{_('Attach this song')}}</button>
    </div>
    <input type="hidden" name="song_artist" id="song_artist" value="{{values.get('song_artist', '')}}">
    <input type="hidden" name="song_title" id="song_title" value="{{values.get('song_title', '')}}">
    <input type="hidden" name="song_album" id="song_album" value="{{values.get('song_album', '')}}">
    <input type="hidden" name="song_source" id="song_source" value="{{values.get('song_source', '')}}">
  </div>
  % else:
    % if entry['location']:
    <label class="inline"><input type="checkbox" name="remove_location" value="1"> {{_('Remove the location ({place})', place=helpers.coordinates(entry['location'], i18n))}}</label>
    % end
    % if entry['song']:
    <label class="inline"><input type="checkbox" name="remove_song" value="1"> {{!_html('Remove the song (<bdi dir="auto">{artist}</bdi> – <bdi dir="auto">{title}</bdi>); a song cannot be added later', artist=entry['song']['artist'], title=entry['song']['title'])}}</label>
    % end
  % end
  <div class="actions save-bar">
    <button type="submit">{{submit}}</button>
    % if not creating:
    <a class="button secondary" href="{{get('back') or '/entries'}}#entry-{{entry['id']}}">{{_('Cancel')}}</a>
    % end
  </div>
</form>
