<section class="card starter" aria-labelledby="starter-title">
  <h2 id="starter-title">Start with some activities?</h2>
  <p class="muted">{{sum(len(m) for _, m in starter_set)}} common ones in {{len(starter_set)}} groups, with icons. You can change them any time.</p>
  <form method="post" action="/activities/starter">
    <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    <details>
      <summary>See and choose them</summary>
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
    </details>
    <div class="actions">
      <button type="submit" name="answer" value="take">Add them</button>
      <button type="submit" name="answer" value="skip" class="secondary">No thanks</button>
    </div>
  </form>
</section>
