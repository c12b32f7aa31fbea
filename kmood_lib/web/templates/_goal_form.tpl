% def said(name):
%   return errors.get(name)
% end
% def described(name, hint=''):
%   ids = ' '.join(i for i in ((hint,) + (('%s-error' % name,) if said(name) else ())) if i)
%   return ('aria-describedby="%s"' % ids if ids else '') + (' aria-invalid="true"' if said(name) else '')
% end
% def refusal(name):
%   return '<span class="field-error" id="%s-error">%s</span>' % (name, helpers.escape(said(name))) if said(name) else ''
% end
% others = {k: v for k, v in errors.items() if k not in ('name', 'activity', 'target', 'period', 'start_date')}
% if errors:
<div class="errors" role="alert">
  <strong>Not saved: {{'see what is marked below' if len(others) < len(errors) else 'please check'}}.</strong>
  % if others:
  <ul>
  % for field, message in others.items():
    <li>{{message}}</li>
  % end
  </ul>
  % end
</div>
% end
<label>Name <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required dir="auto" {{!described('name')}}>{{!refusal('name')}}</label>
<label>Counts
  <select name="activity" {{!described('activity')}}>
    <option value=""{{' selected' if not fields.get('activity') else ''}}>days I check it off</option>
    % for name in activities:
    <option value="{{name}}"{{' selected' if fields.get('activity') == name else ''}}>days with {{name}}</option>
    % end
  </select>{{!refusal('activity')}}
</label>
<div class="row goal-days">
  <label>Days <input name="target" type="number" inputmode="numeric" min="1" max="31" value="{{fields.get('target', '')}}" required {{!described('target', 'target-hint')}}><small class="muted" id="target-hint">1–7 a week, 1–31 a month</small>{{!refusal('target')}}</label>
  <label>Each
    <select name="period" {{!described('period')}}>
      % for period in ('week', 'month'):
      <option value="{{period}}"{{' selected' if fields.get('period') == period else ''}}>{{period}}</option>
      % end
    </select>{{!refusal('period')}}
  </label>
</div>
<label>From <input type="date" name="start_date" value="{{fields.get('start_date', '')}}"{{' required' if editing else ''}} {{!described('start_date', '' if editing else 'start-hint')}}>{{!('' if editing else '<small class="muted" id="start-hint">Empty: from today</small>')}}{{!refusal('start_date')}}</label>
