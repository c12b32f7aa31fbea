% rebase('layout.tpl', title='Jobs')
% include('_settings_nav.tpl')
<p class="muted">Background work (weather, places, songs, reminders, insights) runs in <code>kmood_worker.py</code>. Every job can be found again from your data, so a lost one only costs time.</p>
% workers = summary['workers']
<h2>Workers</h2>
% if not workers['workers']:
<p class="alert">No worker has ever run against this database. Start <code>python kmood_worker.py</code> beside the server.</p>
% else:
<ul class="list">
  % for w in workers['workers']:
  <li>
    <p><strong>{{w['host']}}</strong> <span class="muted">pid {{w['pid']}} · version {{w['version']}}</span> <span class="badge {{'lv5' if w['alive'] else 'lv1'}}">{{'alive' if w['alive'] else 'stale'}}</span></p>
    <p class="muted">{{'In' if w['alive'] else 'Last seen in'}} <strong>{{w['step']}}</strong> for {{helpers.duration(w['step_age_s'])}} · last heartbeat {{helpers.duration(w['last_beat_age_s'])}} ago · {{w['jobs_done']}} jobs done, {{w['jobs_failed']}} failed since it started</p>
  </li>
  % end
</ul>
% end
% age = summary['oldest_waiting_age_s']
<p>Oldest waiting job: <strong>{{'none' if age is None else '%.0f s old' % age}}</strong>.</p>
% if summary['counts']:
<div class="table-wrap card" role="region" aria-labelledby="jobs-caption" tabindex="0">
<table class="data jobs">
  <caption class="skip" id="jobs-caption">Jobs by kind and status</caption>
  <thead><tr><th scope="col">Kind</th>
  % for status in statuses:
    <th scope="col" class="num">{{status}}</th>
  % end
  </tr></thead>
  <tbody>
  % for kind, counts in summary['counts'].items():
  <tr><th scope="row">{{kind}}</th>
    % for status in statuses:
    <td class="num">{{counts.get(status, 0)}}</td>
    % end
  </tr>
  % end
  </tbody>
</table>
</div>
% else:
<p class="muted">The queue is empty.</p>
% end
% exhausted_kinds = sorted({j['kind'] for j in troubled if j['status'] == 'exhausted' and j['kind'] in kinds})
% if exhausted_kinds:
<h2>Retry every exhausted job of a kind</h2>
<form method="post" action="/admin/jobs/retry" class="inline-form card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>Kind <select name="kind">
  % for kind in exhausted_kinds:
    <option value="{{kind}}">{{kind}}</option>
  % end
  </select></label>
  <button type="submit">Retry all exhausted</button>
</form>
% end
<h2>Retrying and exhausted</h2>
% if not troubled:
<p class="muted">Nothing is failing.</p>
% end
<ul class="list">
% for job in troubled:
  <li>
    <p><strong>#{{job['id']}} {{job['kind']}}</strong> <span class="badge {{'lv1' if job['status'] == 'exhausted' else 'lv3'}}">{{job['status']}}</span> <span class="muted">{{job['attempts']}} of {{job['max_attempts']}} attempts · {{job['key']}}</span></p>
    % if job['last_error']:
    <p class="note">Last error: {{job['last_error']}}</p>
    % end
    <form method="post" action="/admin/jobs/{{job['id']}}/retry" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <button type="submit" class="secondary">Retry now<span class="skip"> job {{job['id']}}</span></button>
    </form>
  </li>
% end
</ul>
