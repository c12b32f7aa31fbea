% rebase('layout.tpl', title='Mood labels')
% include('_settings_nav.tpl')
<form method="post" action="/settings/moods" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <p class="muted">Name your five moods. Entries keep their level; a label is what you see.</p>
  % for level in (5, 4, 3, 2, 1):
  <label><span><span class="badge lv{{level}}">{{!helpers.face(level, 20)}} {{level}}</span> {{'best' if level == 5 else 'worst' if level == 1 else ''}}</span>
    <input name="label_{{level}}" value="{{fields.get('label_%d' % level, labels[level])}}" maxlength="32" required>
  </label>
  % end
  <div class="actions"><button type="submit">Save labels</button></div>
</form>
