% p = goal['progress']
<li class="card goal" id="goal-{{goal['id']}}">
  <div class="goal-head">
    <a class="goal-name" href="/goals/{{goal['id']}}" dir="auto">{{goal['name']}}</a>
    <span class="goal-count{{' reached' if p['reached'] else ''}}">{{p['done']}} of {{p['target']}} this {{goal['period']}}</span>
  </div>
  <progress max="{{p['target']}}" value="{{min(p['done'], p['target'])}}" aria-label="{{goal['name']}}: {{p['done']}} of {{p['target']}} days this {{goal['period']}}"></progress>
  <p class="muted">{{('Days with %s' % goal['activity']) if goal['activity'] else 'Checked off by hand'}} · streak {{p['current_streak']}} {{goal['period']}}{{'' if p['current_streak'] == 1 else 's'}}, longest {{p['longest_streak']}}{{' · archived' if goal['archived'] else ''}}</p>
  % if len(p['strip']) > 1:  # one period alone is the bar above again
  <ol class="strip" aria-label="The last {{len(p['strip'])}} {{goal['period']}}s, oldest first">
    % for cell in p['strip']:
    % state = 'hit' if cell['done'] >= goal['target'] else ('some' if cell['done'] else 'none')
    <li class="{{state}}" title="{{cell['start']}}: {{cell['done']}} of {{goal['target']}}"><span class="skip">{{cell['start']}}: {{cell['done']}} of {{goal['target']}}</span></li>
    % end
  </ol>
  % end
  % if not goal['activity'] and not goal['archived']:
  <form method="post" action="/goals/{{goal['id']}}/checkin">
    <input type="hidden" name="csrf_token" value="{{csrf_token}}">
    <input type="hidden" name="back" value="{{back}}">
    % if p['today_checked']:
    <input type="hidden" name="done" value="0">
    <button type="submit" class="secondary">✓ Done today<span class="skip"> ({{goal['name']}}; tap to take back)</span></button>
    % else:
    <input type="hidden" name="done" value="1">
    <button type="submit">Done today<span class="skip">: {{goal['name']}}</span></button>
    % end
  </form>
  % end
</li>
