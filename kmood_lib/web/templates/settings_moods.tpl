% rebase('layout.tpl', title=_('Mood labels'))
% include('_settings_nav.tpl')
<form method="post" action="/settings/moods" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <p class="muted">{{_('Name your five moods. Entries keep their level; a label is what you see.')}}</p>
  % for level in (5, 4, 3, 2, 1):
  <label><span><span class="badge lv{{level}}">{{!helpers.face(level, 20)}} {{i18n.number(level)}}</span> {{_('best') if level == 5 else _('worst') if level == 1 else ''}}</span>
    <input name="label_{{level}}" value="{{fields.get('label_%d' % level, labels[level])}}" maxlength="32" required dir="auto">
  </label>
  % end
  <div class="actions"><button type="submit">{{_('Save labels')}}</button></div>
</form>
