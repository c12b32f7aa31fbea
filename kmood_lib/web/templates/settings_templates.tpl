% rebase('layout.tpl', title=_('Note templates'))
% include('_settings_nav.tpl')
<p class="muted">{{_("Starting points for an entry's title and note — questions you answer every evening, a gratitude list. Pick one on the log form and it fills in the title and note, to change as you write.")}}</p>
<form method="post" action="/settings/templates" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>{{_('Name')}} <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required placeholder="{{_('Evening')}}" dir="auto"></label>
  <label>{{_('Title')}} <span class="muted">{{_('(optional)')}}</span> <input name="note_title" value="{{fields.get('note_title', '')}}" maxlength="200" dir="auto"></label>
  <label>{{_('Note')}} <textarea name="note" maxlength="20000" dir="auto" placeholder="{{_('What went well today?')}}&#10;{{_('What would I do differently?')}}">{{fields.get('note', '')}}</textarea></label>
  <div class="actions"><button type="submit">{{_('Add template')}}</button></div>
</form>
% if templates:
<h2>{{_('Your templates')}}</h2>
<ul class="list">
% for template in templates:
  <li>
    <form method="post" action="/settings/templates/{{template['id']}}">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>{{_('Name')}} <input name="name" value="{{template['name']}}" maxlength="64" required dir="auto"></label>
      <label>{{_('Title')}} <input name="note_title" value="{{template['note_title']}}" maxlength="200" dir="auto"></label>
      <label>{{_('Note')}} <textarea name="note" maxlength="20000" dir="auto">{{template['note']}}</textarea></label>
      <div class="actions">
        <button type="submit" class="secondary">{{!_html('Save<span class="skip"> <bdi dir="auto">{name}</bdi></span>', name=template['name'])}}</button>
        <a href="/settings/templates/{{template['id']}}/delete">{{!_html('Delete<span class="skip"> <bdi dir="auto">{name}</bdi></span>', name=template['name'])}}</a>
      </div>
    </form>
  </li>
% end
</ul>
% end
