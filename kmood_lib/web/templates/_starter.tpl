<section class="card starter" aria-labelledby="starter-title">
  <h2 id="starter-title">Start with {{sum(len(m) for _, m in starter_set)}} common activities?</h2>
  <form method="post" action="/activities/starter">
    <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    <div class="actions">
      <button type="submit" name="answer" value="take">Add them</button>
      <button type="submit" name="answer" value="skip" class="secondary">No thanks</button>
    </div>
    <details>
      <summary>See them, untick some</summary>
      <p class="muted">{{len(starter_set)}} groups, each activity with an icon; change them any time under Settings → Activities.</p>
      % for g, (group, members) in enumerate(starter_set):
      <fieldset>
        <legend>{{group}}</legend>
        <div class="chips">
        % for n, (name, icon) in enumerate(members):
          <input type="checkbox" name="take" value="{{name}}" id="starter-{{g}}-{{n}}" checked>
          <label for="starter-{{g}}-{{n}}"><span class="icon" aria-hidden="true">{{icon}}</span>{{name}}</label>
        % end
        </div>
      </fieldset>
      % end
      <div class="actions">
        <button type="submit" name="answer" value="take">Add the ticked ones</button>
      </div>
    </details>
  </form>
</section>
