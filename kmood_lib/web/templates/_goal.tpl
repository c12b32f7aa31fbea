% p = goal['progress']
% week = goal['period'] == 'week'
% done, target = i18n.number(p['done']), i18n.number(p['target'])
<li class="card goal" id="goal-{{goal['id']}}">
  <div class="goal-head">
    <a class="goal-name" href="/goals/{{goal['id']}}" dir="auto" id="goal-{{goal['id']}}-name">{{goal['name']}}</a>
    <span class="goal-count{{' reached' if p['reached'] else ''}}" id="goal-{{goal['id']}}-count">{{_('{done} of {target} this week', done=done, target=target) if week else _('{done} of {target} this month', done=done, target=target)}}</span>
  </div>
  <progress max="{{p['target']}}" value="{{min(p['done'], p['target'])}}" aria-labelledby="goal-{{goal['id']}}-name goal-{{goal['id']}}-count"></progress>
  % if goal['activity']:
  % counts = _html('Days with <bdi dir="auto">{activity}</bdi>', activity=goal['activity'])
  % else:
  % counts = helpers.escape(_('Checked off by hand'))
  % end
  % if week:
  % streak = n_('streak {n} week, longest {longest}', 'streak {n} weeks, longest {longest}', p['current_streak'], longest=i18n.number(p['longest_streak']))
  % else:
  % streak = n_('streak {n} month, longest {longest}', 'streak {n} months, longest {longest}', p['current_streak'], longest=i18n.number(p['longest_streak']))
  % end
  <p class="muted">{{!counts}} · {{streak}}{{(' · ' + _('archived')) if goal['archived'] else ''}}</p>
  % if len(p['strip']) > 1:  # one period alone is the bar above again
  % strip = n_('The last {n} week, oldest first', 'The last {n} weeks, oldest first', len(p['strip'])) if week else n_('The last {n} month, oldest first', 'The last {n} months, oldest first', len(p['strip']))
  <ol class="strip" aria-label="{{strip}}">
    % for cell in p['strip']:
    % state = 'hit' if cell['done'] >= goal['target'] else ('some' if cell['done'] else 'none')
    % said = _('{start}: {done} of {target}', start=helpers.date_text(i18n, cell['start'], 'yMMMd'), done=i18n.number(cell['done']), target=i18n.number(goal['target']))
    <li class="{{state}}" title="{{said}}"><span class="skip">{{said}}</span></li>
    % end
  </ol>
  % end
  % if not goal['activity'] and not goal['archived']:
  <form method="post" action="/goals/{{goal['id']}}/checkin">
    <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    <input type="hidden" name="back" value="{{back}}">
    % if p['today_checked']:
    <input type="hidden" name="done" value="0">
    <button type="submit" class="secondary">{{!_html('✓ Done today<span class="skip"> (<bdi dir="auto">{name}</bdi>; tap to take back)</span>', name=goal['name'])}}</button>
    % else:
    <input type="hidden" name="done" value="1">
    <button type="submit">{{!_html('Done today<span class="skip">: <bdi dir="auto">{name}</bdi></span>', name=goal['name'])}}</button>
    % end
  </form>
  % end
</li>
