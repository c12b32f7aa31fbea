% rebase('layout.tpl', title=_('Mood report, {period}', period=period), bare=True, scripts=('report.js',))
<p class="shared-note no-print"><span>{{!_html('Shared with <bdi dir="auto">{name}</bdi> until {day}.', name=shared.name, day=i18n.day(helpers.utc_day(shared.expires_at), 'yMMMd'))}}</span> <button type="button" id="print-report" class="secondary" hidden>{{_('Print or save as PDF')}}</button></p>
% include('_report.tpl')
