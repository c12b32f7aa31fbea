<li class="entry" id="entry-{{entry['id']}}">
  <div class="entry-head">
    <span class="badge lv{{entry['mood']}}">{{!helpers.face(entry['mood'], 20)}} <span dir="auto">{{entry['mood_label']}}</span></span>
    <span class="time">{{helpers.clock_time(entry, i18n) if show_time else helpers.when(entry, i18n)}}</span>
    % if get('actions', True):
    <span class="entry-actions">
      <a href="/entries/{{entry['id']}}/edit{{helpers.back_query(get('back'))}}">{{!_html('Edit<span class="skip"> entry of {when}</span>', when=helpers.when(entry, i18n))}}</a>
      <a href="/entries/{{entry['id']}}/delete{{helpers.back_query(get('back'))}}">{{!_html('Delete<span class="skip"> entry of {when}</span>', when=helpers.when(entry, i18n))}}</a>
    </span>
    % end
  </div>
  % if entry['note_title']:
  <p class="title" dir="auto">{{entry['note_title']}}</p>
  % end
  % if entry['note']:
  <p class="note" dir="auto">{{entry['note']}}</p>
  % end
  % if entry.get('photos'):
  <ul class="thumbs" aria-label="{{_('Photos')}}">
    % for i, photo in enumerate(entry['photos']):
    <li><a href="{{photo['url']}}"><img src="{{photo['thumb_url']}}" alt="{{_('Photo {number} of {count}', number=i18n.number(i + 1), count=i18n.number(len(entry['photos'])))}}" width="96" height="96" loading="lazy"></a></li>
    % end
  </ul>
  % end
  % for memo in entry.get('memos') or ():
  <audio class="memo" controls preload="none" src="{{memo['url']}}" aria-label="{{_('Voice memo')}}"></audio>
  % end
  % if entry['activities']:
  <ul class="tags" aria-label="{{_('Activities')}}">
    % for name in entry['activities']:
    <li dir="auto">{{name}}</li>
    % end
  </ul>
  % end
  % song = entry['song']
  % if song:
  % info = song['metadata']
  <div class="song">
    % if info and info['cover_url']:
    <img class="cover" src="{{info['cover_url']}}" alt="{{_('Cover of {release}', release=info['release'])}}" width="48" height="48" loading="lazy">
    % else:
    <span class="cover none" aria-hidden="true">♪</span>
    % end
    <span class="song-text"><span><span class="song-title" dir="auto">{{song['title']}}</span> <span class="muted">{{!_html('by <bdi dir="auto">{artist}</bdi>', artist=song['artist'])}}</span></span>
    % if info and info['release']:
    <span class="muted song-release" dir="auto">{{info['release']}}{{', ' + info['release_date'][:4] if info['release_date'] else ''}}</span>
    % elif song['album']:
    <span class="muted song-release" dir="auto">{{song['album']}}</span>
    % end
    </span>
  </div>
  % end
  % has_meta = entry['metrics'] or entry['location'] or entry['weather']
  % if has_meta:
  <div class="meta">
    % for name, value in entry['metrics'].items():
    <span>{{!_html('<bdi dir="auto">{name}</bdi>: {value}', name=name, value=helpers.shown_number(value, i18n))}}</span>
    % end
    % if entry['location']:
    % if entry['location']['place']:
    <span dir="auto">{{entry['location']['place']}}</span>
    % else:
    <span>{{helpers.coordinates(entry['location'], i18n)}}</span>
    % end
    % end
    % if entry['weather'] and not entry['weather'].get('unavailable'):
    <span>{{_('{weather}, {temperature} °C', weather=i18n.gettext(entry['weather']['description']), temperature=i18n.decimal(entry['weather']['temperature_c'], 1))}}</span>
    % end
  </div>
  % end
</li>
