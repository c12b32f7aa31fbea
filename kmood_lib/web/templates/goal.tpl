% rebase('layout.tpl', title=goal['name'])
<h1 dir="auto">{{goal['name']}}</h1>
<p><a href="/goals">‹ Goals</a></p>
<ul class="goals">
% include('_goal.tpl', goal=goal, back='/goals')
</ul>
<h2>Change it</h2>
<form method="post" action="/goals/{{goal['id']}}" class="card" novalidate>
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  % include('_goal_form.tpl', editing=True)
  <label class="inline"><input type="checkbox" name="archived" value="1"{{' checked' if fields.get('archived') == '1' else ''}}> Archived: not on the log page, its history kept</label>
  <div class="actions">
    <button type="submit">Save</button>
    <a href="/goals/{{goal['id']}}/delete">Delete this goal</a>
  </div>
</form>
