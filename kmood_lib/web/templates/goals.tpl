% rebase('layout.tpl', title=_('Goals'))
<h1>{{_('Goals')}}</h1>
% active = [g for g in goals if not g['archived']]
% archived = [g for g in goals if g['archived']]
% if active:
<ul class="goals" id="goals">
  % for goal in active:
  % include('_goal.tpl', goal=goal, back='/goals')
  % end
</ul>
% else:
<p class="muted">{{_('No goals yet. A goal counts the days you log an activity — “walk 3 days a week” — or the days you check it off here.')}}</p>
% end
<h2>{{_('New goal')}}</h2>
<form method="post" action="/goals" class="card" novalidate>
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  % include('_goal_form.tpl', editing=False)
  <div class="actions"><button type="submit">{{_('Add goal')}}</button></div>
</form>
% if archived:
<details class="card">
  <summary>{{_('Archived ({n})', n=i18n.number(len(archived)))}}</summary>
  <ul class="goals">
    % for goal in archived:
    % include('_goal.tpl', goal=goal, back='/goals')
    % end
  </ul>
</details>
% end
