% if deliveries:
<h2>{{_('Last deliveries')}}</h2>
% from datetime import date
% said = {'sent': _('sent'), 'skipped': _('skipped'), 'missed': _('missed'), 'failed': _('failed')}
<ul class="list deliveries">
  % for d in deliveries:
  <li><span><strong><time datetime="{{d['local_date']}}">{{i18n.day(d['local_date'])}}</time></strong> {{d['time']}}</span> <span class="status {{d['status']}}">{{said.get(d['status'], d['status'])}}</span>
    % if d['status'] == 'missed':
    <span class="muted">{{_('the worker did not get to it within the grace window')}}</span>
    % elif d['last_error'] and d['status'] != 'sent':
    <span class="muted" translate="no">{{d['last_error']}}</span>
    % end
  </li>
  % end
</ul>
% end
