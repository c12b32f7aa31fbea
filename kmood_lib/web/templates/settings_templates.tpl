% rebase('layout.tpl', title='Note templates')
% include('_settings_nav.tpl')
<p class="muted">Starting points for an entry's title and note — questions you answer every evening, a gratitude list. Pick one on the log form and it fills in the title and note, to change as you write.</p>
<form method="post" action="/settings/templates" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>Name <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required placeholder="Evening"></label>
  <label>Title <span class="muted">(optional)</span> <input name="note_title" value="{{fields.get('note_title', '')}}" maxlength="200" dir="auto"></label>
  <label>Note <textarea name="note" maxlength="20000" dir="auto" placeholder="What went well today?&#10;What would I do differently?">{{fields.get('note', '')}}</textarea></label>
  <div class="actions"><button type="submit">Add template</button></div>
</form>
% if templates:
<h2>Your templates</h2>
<ul class="list">
% for template in templates:
  <li>
    <form method="post" action="/settings/templates/{{template['id']}}">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label>Name <input name="name" value="{{template['name']}}" maxlength="64" required dir="auto"></label>
      <label>Title <input name="note_title" value="{{template['note_title']}}" maxlength="200" dir="auto"></label>
      <label>Note <textarea name="note" maxlength="20000" dir="auto">{{template['note']}}</textarea></label>
      <div class="actions">
        <button type="submit" class="secondary">Save<span class="skip"> {{template['name']}}</span></button>
        <a href="/settings/templates/{{template['id']}}/delete">Delete<span class="skip"> {{template['name']}}</span></a>
      </div>
    </form>
  </li>
% end
</ul>
% end
