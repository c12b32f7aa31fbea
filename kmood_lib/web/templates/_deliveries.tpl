% if deliveries:
<h2>Last deliveries</h2>
<ul class="list deliveries">
  % for d in deliveries:
  <li><span><strong>{{d['local_date']}}</strong> {{d['time']}}</span> <span class="status {{d['status']}}">{{d['status']}}</span>
    % if d['last_error'] and d['status'] != 'sent':
    <span class="muted">{{d['last_error']}}</span>
    % end
  </li>
  % end
</ul>
% end
