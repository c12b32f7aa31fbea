% rebase('layout.tpl', title=goal['name'], own_title=True)
<h1 dir="auto">{{goal['name']}}</h1>
<p><a href="/goals">‹ {{_('Goals')}}</a></p>
<ul class="goals">
% include('_goal.tpl', goal=goal, back='/goals')
</ul>
<h2>{{_('Change it')}}</h2>
<form method="post" action="/goals/{{goal['id']}}" class="card" novalidate>
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  % include('_goal_form.tpl', editing=True)
  <label class="inline"><input type="checkbox" name="archived" value="1"{{' checked' if fields.get('archived') == '1' else ''}}> {{_('Archived: not on the log page, its history kept')}}</label>
  <div class="actions">
    <button type="submit">{{_('Save')}}</button>
    <a href="/goals/{{goal['id']}}/delete">{{_('Delete this goal')}}</a>
  </div>
</form>
