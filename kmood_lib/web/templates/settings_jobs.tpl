% rebase('layout.tpl', title=_('Jobs'))
% include('_settings_nav.tpl')
<p class="muted">{{!_html('Background work (weather, places, songs, reminders, insights) runs in <code translate="no">{program}</code>. Every job can be found again from your data, so a lost one only costs time.', program='kmood_worker.py')}}</p>
% workers = summary['workers']
<h2>{{_('Workers')}}</h2>
% if not workers['workers']:
<p class="alert">{{!_html('No worker has ever run against this database. Start <code translate="no">{command}</code> beside the server.', command='python kmood_worker.py')}}</p>
% else:
<ul class="list">
  % for w in workers['workers']:
  <li>
    <p><strong translate="no">{{w['host']}}</strong> <span class="muted">{{_('pid {pid} · version {version}', pid=w['pid'], version=w['version'])}}</span> <span class="badge {{'lv5' if w['alive'] else 'lv1'}}">{{_('alive') if w['alive'] else _('stale')}}</span></p>
    % where = _html('In <strong translate="no">{step}</strong> for {duration}', step=w['step'], duration=duration(w['step_age_s'])) if w['alive'] else _html('Last seen in <strong translate="no">{step}</strong> for {duration}', step=w['step'], duration=duration(w['step_age_s']))
    <p class="muted">{{!where}} · {{_('last heartbeat {ago} ago', ago=duration(w['last_beat_age_s']))}} · {{n_('{n} job done, {failed} failed since it started', '{n} jobs done, {failed} failed since it started', w['jobs_done'], failed=i18n.number(w['jobs_failed']))}}</p>
  </li>
  % end
</ul>
% end
% age = summary['oldest_waiting_age_s']
<p>{{!_html('Oldest waiting job: <strong>{age}</strong>.', age=_('none') if age is None else _('{n} s old', n=i18n.number(round(age))))}}</p>
% if summary['counts']:
<div class="table-wrap card" role="region" aria-labelledby="jobs-caption" tabindex="0">
<table class="data jobs">
  <caption class="skip" id="jobs-caption">{{_('Jobs by kind and status')}}</caption>
  <thead><tr><th scope="col">{{_('Kind')}}</th>
  % for status in statuses:
    <th scope="col" class="num">{{_(status_words[status]) if status in status_words else status}}</th>
  % end
  </tr></thead>
  <tbody>
  % for kind, counts in summary['counts'].items():
  <tr><th scope="row" translate="no">{{kind}}</th>
    % for status in statuses:
    <td class="num">{{i18n.number(counts.get(status, 0))}}</td>
    % end
  </tr>
  % end
  </tbody>
</table>
</div>
% else:
<p class="muted">{{_('The queue is empty.')}}</p>
% end
% exhausted_kinds = sorted({j['kind'] for j in troubled if j['status'] == 'exhausted' and j['kind'] in kinds})
% if exhausted_kinds:
<h2>{{_('Retry every exhausted job of a kind')}}</h2>
<form method="post" action="/admin/jobs/retry" class="inline-form card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <label>{{_('Kind')}} <select name="kind" translate="no">
  % for kind in exhausted_kinds:
    <option value="{{kind}}">{{kind}}</option>
  % end
  </select></label>
  <button type="submit">{{_('Retry all exhausted')}}</button>
</form>
% end
<h2>{{_('Retrying and exhausted')}}</h2>
% if not troubled:
<p class="muted">{{_('Nothing is failing.')}}</p>
% end
<ul class="list">
% for job in troubled:
  <li>
    <p><strong translate="no">#{{job['id']}} {{job['kind']}}</strong> <span class="badge {{'lv1' if job['status'] == 'exhausted' else 'lv3'}}">{{_(status_words[job['status']]) if job['status'] in status_words else job['status']}}</span> <span class="muted">{{n_('{attempts} of {n} attempt', '{attempts} of {n} attempts', job['max_attempts'], attempts=i18n.number(job['attempts']))}} · <span translate="no">{{job['key']}}</span></span></p>
    % if job['last_error']:
    <p class="note">{{!_html('Last error: <span translate="no">{error}</span>', error=job['last_error'])}}</p>
    % end
    <form method="post" action="/admin/jobs/{{job['id']}}/retry" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <button type="submit" class="secondary">{{!_html('Retry now<span class="skip"> job {id}</span>', id=job['id'])}}</button>
    </form>
  </li>
% end
</ul>
