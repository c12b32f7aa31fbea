% rebase('layout.tpl', title=_('Edit entry'))
% include('_entry_form.tpl', action='/entries/%d/edit' % entry['id'], creating=False, heading=_('Edit entry'), submit=_('Save changes'))
% if entry['location'] or entry['weather'] or entry['song']:
<section aria-labelledby="found-title">
  <h2 id="found-title">{{_('Place, weather and song')}}</h2>
  <ul class="entries summary"><!-- what the worker found out about it -->
    % include('_entry.tpl', entry=entry, show_time=False, actions=False)
  </ul>
</section>
% end
<section id="photos" class="photos-edit">
  <h2>{{_('Photos')}}</h2>
  % if photo_error:
  <p class="errors" role="alert">{{_(photo_error)}}</p>
  % end
  % shown = entry['photos']
  % if shown:
  <ol class="photo-list">
    % for i, photo in enumerate(shown):
    <li class="card">
      <a href="{{photo['url']}}"><img src="{{photo['thumb_url']}}" alt="{{_('Photo {number} of {count}', number=i18n.number(i + 1), count=i18n.number(len(shown)))}}" width="{{min(400, photo['width']) if photo['width'] >= photo['height'] else round(400 * photo['width'] / photo['height'])}}" height="{{min(400, photo['height']) if photo['height'] >= photo['width'] else round(400 * photo['height'] / photo['width'])}}" loading="lazy"></a>
      <div class="photo-actions">
        % if i:
        <form method="post" action="/photos/{{photo['id']}}/earlier"><input type="hidden" name="csrf_token" value="{{csrf_token}}"><button class="secondary" type="submit">{{!_html('Move earlier<span class="skip"> (photo {number})</span>', number=i18n.number(i + 1))}}</button></form>
        % end
        <form method="post" action="/photos/{{photo['id']}}/delete"><input type="hidden" name="csrf_token" value="{{csrf_token}}"><button class="secondary danger" type="submit">{{!_html('Remove<span class="skip"> photo {number}</span>', number=i18n.number(i + 1))}}</button></form>
      </div>
    </li>
    % end
  </ol>
  % end
  % if len(shown) < photo_limits.per_entry:
  <form class="card" method="post" action="/entries/{{entry['id']}}/photos" enctype="multipart/form-data">
    <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    <label for="photo-files">{{_('Add photos')}} <span class="muted">{{_('(up to {n} more; JPEG, PNG or WebP, {size} each)', n=i18n.number(photo_limits.per_entry - len(shown)), size=_('{size} MB', size=i18n.number(photo_limits.max_bytes // (1024 * 1024))))}}</span></label>
    <input id="photo-files" type="file" name="photo" accept="image/jpeg,image/png,image/webp" multiple>
    <p class="muted">{{_('Their location and other hidden details are removed before they are stored.')}}</p>
    <button type="submit">{{_('Add photos')}}</button>
  </form>
  % else:
  <p class="muted">{{_('This entry holds the most photos it can ({n}).', n=i18n.number(photo_limits.per_entry))}}</p>
  % end
</section>
