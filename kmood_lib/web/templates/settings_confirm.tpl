% # What is deleted (`what`, with the person's own name for it as `subject`, or `count` of
% # several), and what deleting it takes with it (`consequences`, in the person's language;
% # a line that is HTML already says so with `__html__`, rendering.Html).
% if what == 'activities':
%   title = heading = n_('Delete {n} activity?', 'Delete {n} activities?', count)
%   heading, button = helpers.escape(heading), n_('Delete {n} activity', 'Delete {n} activities', count)
% elif what == 'activity':
%   title, button = _('Delete activity'), _('Delete activity')
%   heading = _html('Delete the activity “<bdi dir="auto">{name}</bdi>”?', name=subject)
% elif what == 'metric':
%   title, button = _('Delete metric'), _('Delete metric')
%   heading = _html('Delete the metric “<bdi dir="auto">{name}</bdi>”?', name=subject)
% elif what == 'template':
%   title, button = _('Delete template'), _('Delete template')
%   heading = _html('Delete the template “<bdi dir="auto">{name}</bdi>”?', name=subject)
% elif what == 'account':
%   title, button = _('Delete account'), _('Delete account')
%   heading = _html('Delete the account “<bdi dir="auto">{name}</bdi>”?', name=subject)
% elif what == 'goal':
%   title, button = _('Delete goal'), _('Delete goal')
%   heading = _html('Delete the goal “<bdi dir="auto">{name}</bdi>”?', name=subject)
% elif what == 'reminder':
%   title, button = _('Delete reminder'), _('Delete reminder')
%   heading = _html('Delete the reminder at {time}, sent with <span translate="no">{channel}</span>?', time=subject, channel=get('channel', ''))
% else:
%   title, button = _('Delete'), _('Delete')
%   heading = _html('Delete “<bdi dir="auto">{name}</bdi>”?', name=subject or '')
% end
% rebase('layout.tpl', title=title)
<h1>{{!heading}}</h1>
% names = get('names', ())
% if names:
<p class="names">
  % for name in names:
  <span class="name" dir="auto">{{name}}</span>
  % end
</p>
% end
<ul>
% for line in consequences:
  <li>{{!line.__html__() if hasattr(line, '__html__') else helpers.escape(line)}}</li>
% end
</ul>
<form method="post" action="{{action}}" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  % for name, value in get('hidden', ()):
  <input type="hidden" name="{{name}}" value="{{value}}">
  % end
  <button type="submit" class="danger">{{button}}</button>
  <a class="button secondary" href="{{back}}">{{_('Keep them') if what == 'activities' else _('Keep it')}}</a>
</form>
