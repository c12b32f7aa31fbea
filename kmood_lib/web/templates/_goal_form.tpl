% def said(name):
%   return errors.get(name)
% end
% def described(name, hint=''):
%   ids = ' '.join(i for i in ((hint,) + (('%s-error' % name,) if said(name) else ())) if i)
%   return ('aria-describedby="%s"' % ids if ids else '') + (' aria-invalid="true"' if said(name) else '')
% end
% def refusal(name):
%   return '<span class="field-error" id="%s-error">%s</span>' % (name, helpers.escape(_(said(name)))) if said(name) else ''
% end
% others = {k: v for k, v in errors.items() if k not in ('name', 'activity', 'target', 'period', 'start_date')}
% if errors:
<div class="errors" role="alert">
  <strong>{{_('Not saved: see what is marked below.') if len(others) < len(errors) else _('Not saved: please check.')}}</strong>
  % if others:
  <ul>
  % for field, message in others.items():
    <li>{{_(message)}}</li>
  % end
  </ul>
  % end
</div>
% end
<label>{{_('Name')}} <input name="name" value="{{fields.get('name', '')}}" maxlength="64" required dir="auto" {{!described('name')}}>{{!refusal('name')}}</label>
<label>{{_('Counts')}}
  <select name="activity" {{!described('activity')}}>
    <option value=""{{' selected' if not fields.get('activity') else ''}}>{{_('days I check it off')}}</option>
    % for name in activities:
    <option value="{{name}}"{{' selected' if fields.get('activity') == name else ''}} dir="auto">{{_('days with {activity}', activity=name)}}</option>
    % end
  </select>{{!refusal('activity')}}
</label>
<div class="row goal-days">
  <label>{{_('Days')}} <input name="target" type="number" inputmode="numeric" min="1" max="31" value="{{fields.get('target', '')}}" required {{!described('target', 'target-hint')}}><small class="muted" id="target-hint">{{_('1–7 a week, 1–31 a month')}}</small>{{!refusal('target')}}</label>
  <label>{{_('Each')}}
    <select name="period" {{!described('period')}}>
      % for period, shown in (('week', _('week')), ('month', _('month'))):
      <option value="{{period}}"{{' selected' if fields.get('period') == period else ''}}>{{shown}}</option>
      % end
    </select>{{!refusal('period')}}
  </label>
</div>
<label>{{_('From')}} <input type="date" name="start_date" value="{{fields.get('start_date', '')}}"{{' required' if editing else ''}} {{!described('start_date', '' if editing else 'start-hint')}}>{{!('' if editing else '<small class="muted" id="start-hint">%s</small>' % helpers.escape(_('Empty: from today')))}}{{!refusal('start_date')}}</label>
