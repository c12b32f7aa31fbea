% include('_errors.tpl', errors=errors)
<label>Name <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required placeholder="Walk" dir="auto"></label>
<label>Counts
  <select name="activity">
    <option value=""{{' selected' if not fields.get('activity') else ''}}>days I check it off</option>
    % for name in activities:
    <option value="{{name}}"{{' selected' if fields.get('activity') == name else ''}}>days with {{name}}</option>
    % end
  </select>
</label>
<div class="row">
  <label>Days <input name="target" type="number" inputmode="numeric" min="1" max="31" value="{{fields.get('target', '')}}" required></label>
  <label>Each
    <select name="period">
      % for period in ('week', 'month'):
      <option value="{{period}}"{{' selected' if fields.get('period') == period else ''}}>{{period}}</option>
      % end
    </select>
  </label>
</div>
<label>From <input type="date" name="start_date" value="{{fields.get('start_date', '')}}" required></label>
