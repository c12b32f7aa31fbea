% rebase('layout.tpl', title=_('Sharing'), scripts=('report.js',))
% include('_settings_nav.tpl')
% if made:
% link, text = made
<div class="card" role="status" id="new-link">
  <h2>{{!_html('A link for <bdi dir="auto">{name}</bdi>', name=link.name)}}</h2>
  <p>{{_('Copy it now: it is shown only this once. Whoever has it sees the report until {day}.', day=i18n.day(helpers.utc_day(link.expires_at), 'yMMMd'))}}</p>
  <p class="token" translate="no"><a id="shared-link" href="{{base_url}}/shared/{{text}}" rel="noreferrer">{{base_url}}/shared/{{text}}</a></p>
  <p><button type="button" class="secondary" id="copy-link" data-copy="{{base_url}}/shared/{{text}}" data-copied="{{_('Copied.')}}" hidden>{{_('Copy the link')}}</button> <span id="copy-said" role="status"></span></p>
</div>
% end
<p class="muted">{{!_html('Links to a report of your journal, made from the report (<a href="{report}">Stats → Report</a>). Each shows that report and nothing else; revoke one and it shows nothing from then on.', report='/report')}}</p>
% if links:
<ul class="list shared-links">
% for link in links:
  % gone = link.expired(now_ms)
  <li>
    <form method="post" action="/settings/sharing/{{link.id}}/revoke" class="actions">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <span><strong dir="auto">{{link.name}}</strong> · {{_('{period}, with the entries and photos', period=period(link.contents)) if link.contents.with_photos else _('{period}, with the entries', period=period(link.contents)) if link.contents.with_entries else period(link.contents)}}<br>
      <span class="muted">{{_('made {day}', day=i18n.day(helpers.utc_day(link.created_at)))}} · {{_('expired {day}', day=i18n.day(helpers.utc_day(link.expires_at))) if gone else _('open until {day}', day=i18n.day(helpers.utc_day(link.expires_at)))}} · {{n_('opened {n} time, last {when}', 'opened {n} times, last {when}', link.opened_count, when=helpers.instant(link.last_opened_at, i18n)) if link.opened_count else _('not opened yet')}}</span></span>
      <button type="submit" class="link">{{_('Remove') if gone else _('Revoke')}}<span class="skip" dir="auto"> {{link.name}}</span></button>
    </form>
  </li>
% end
</ul>
% else:
<p>{{_('No links yet.')}}</p>
% end
