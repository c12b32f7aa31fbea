% rebase('layout.tpl', title=_('Mood report, {period}', period=period), scripts=('report.js',))
<div class="report-tools no-print">
<p class="muted"><a href="/stats?range={{current if current in ranges else 'all'}}">{{_('‹ Stats')}}</a></p>
<p class="report-actions"><button type="button" id="print-report" hidden>{{_('Print or save as PDF')}}</button> <a class="button secondary" href="#share">{{_('Share a link')}}</a></p>
<details class="card report-fold">
<summary>{{_('Choose the days and what is in it')}}</summary>
<form method="get" action="/report" class="report-choice">
  <fieldset>
    <legend>{{_('Days')}}</legend>
    <div class="choice-row">
    % for key, (name, _days) in ranges.items():
    <label class="inline"><input type="radio" name="range" value="{{key}}"{{!' checked' if key == current else ''}}> {{_(name)}}</label>
    % end
    <label class="inline"><input type="radio" name="range" value="dates"{{!' checked' if current == 'dates' else ''}}> {{_('These days:')}}</label>
    </div>
    <div class="row">
      <label>{{_('From')}} <input type="date" name="from" value="{{contents.date_from}}"></label>
      <label>{{_('To')}} <input type="date" name="to" value="{{contents.date_to}}"></label>
    </div>
  </fieldset>
  <label class="inline"><input type="checkbox" name="entries" value="1"{{!' checked' if contents.with_entries else ''}}> {{_('The entries, day by day')}}</label>
  <label class="inline"><input type="checkbox" name="photos" value="1"{{!' checked' if contents.with_photos else ''}}> {{_('With their photos')}}</label>
  <button type="submit" class="secondary">{{_('Show')}}</button>
</form>
</details>
<p class="muted print-hint">{{_('To keep it as a PDF, print it and choose “Save as PDF” as the printer.')}}</p>
</div>
% include('_report.tpl')
<section id="share" class="card report-share no-print" aria-labelledby="share-title">
<h2 id="share-title">{{_('Share a link')}}</h2>
<p class="muted">{{_('Whoever has the link sees this report, with these days and what it includes, and nothing else of your journal, until it expires or you revoke it under Settings → Sharing.')}}</p>
% include('_errors.tpl')
<form method="post" action="/report/share">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <input type="hidden" name="from" value="{{contents.date_from}}">
  <input type="hidden" name="to" value="{{contents.date_to}}">
  <input type="hidden" name="entries" value="{{'1' if contents.with_entries else '0'}}">
  <input type="hidden" name="photos" value="{{'1' if contents.with_photos else '0'}}">
  <div class="row">
    <label>{{_('Shared with')}} <input name="name" value="{{fields.get('name', '')}}" maxlength="100" required placeholder="{{_('Dr. M.')}}" dir="auto"></label>
    <label>{{_('Open for')}} <select name="expires">
    % for n_days, name in expiry_choices.items():
      <option value="{{n_days}}"{{!' selected' if str(n_days) == fields.get('expires', '30') else ''}}>{{_(name)}}</option>
    % end
    </select></label>
  </div>
  <button type="submit">{{_('Make the link')}}</button>
</form>
</section>
