% # The starter set's names are shown as they will be made: the person's own activities then.
<section class="card starter" aria-labelledby="starter-title">
  <h2 id="starter-title">{{n_('Start with {n} common activity?', 'Start with {n} common activities?', sum(len(m) for g, m in starter_set))}}</h2>
  <form method="post" action="/activities/starter">
    <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    <div class="actions">
      <button type="submit" name="answer" value="take">{{_('Add them')}}</button>
      <button type="submit" name="answer" value="skip" class="secondary">{{_('No thanks')}}</button>
    </div>
    <details>
      <summary>{{_('See them, untick some')}}</summary>
      <p class="muted">{{n_('{n} group, each activity with an icon; change them any time under Settings → Activities.', '{n} groups, each activity with an icon; change them any time under Settings → Activities.', len(starter_set))}}</p>
      % for g, (group, members) in enumerate(starter_set):
      <fieldset>
        <legend dir="auto">{{group}}</legend>
        <div class="chips">
        % for n, (name, icon) in enumerate(members):
          <input type="checkbox" name="take" value="{{name}}" id="starter-{{g}}-{{n}}" checked>
          <label for="starter-{{g}}-{{n}}" dir="auto"><span class="icon" aria-hidden="true">{{icon}}</span>{{name}}</label>
        % end
        </div>
      </fieldset>
      % end
      <div class="actions">
        <button type="submit" name="answer" value="take">{{_('Add the ticked ones')}}</button>
      </div>
    </details>
  </form>
</section>
