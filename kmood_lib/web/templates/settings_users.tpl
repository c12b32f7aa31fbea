% rebase('layout.tpl', title=_('Household'))
% include('_settings_nav.tpl')
<p class="muted">{{_("Everyone here has their own private journal; no one sees another's entries.")}}</p>
<form method="post" action="/settings/users" class="card">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <h2>{{_('Add a member')}}</h2>
  <div class="row">
    <label>{{_('User name')}} <input name="username" value="{{fields.get('username', '')}}" maxlength="64" autocomplete="off" required dir="auto"></label>
    % if password_login:
    <label>{{_('Password')}} <span class="muted">{{n_('(at least {n} character)', '(at least {n} characters)', 8)}}</span> <input type="password" name="password" autocomplete="new-password" minlength="8" required></label>
    % elif proxy:
    <label>{{_('Sign-in proxy user name')}} <input name="subject" value="{{fields.get('subject', '')}}" maxlength="255" autocomplete="off" required dir="auto"></label>
    % else:
    <label><span>{{!_html('ID at <bdi dir="auto">{provider}</bdi> (shown to them when a sign-in finds no account)', provider=single_sign_on)}}</span> <input name="subject" value="{{fields.get('subject', '')}}" maxlength="255" autocomplete="off" required dir="auto"></label>
    % end
  </div>
  % if link_by_email:
  <label>{{_('Email address')}} <span class="muted">{{!_html('(optional: their first sign-in with <bdi dir="auto">{provider}</bdi> links this account when the provider has verified it)', provider=single_sign_on)}}</span> <input name="email" type="email" value="{{fields.get('email', '')}}" autocomplete="off" maxlength="254" dir="ltr"></label>
  % end
  <label class="inline"><input type="checkbox" name="admin" value="1"{{' checked' if fields.get('admin') else ''}}> {{_('Admin (may manage members and the job queue)')}}</label>
  <div class="actions"><button type="submit">{{_('Add member')}}</button></div>
</form>
<h2>{{_('Members')}}</h2>
<ul class="list">
% for person in people:
  <li>
    <p><strong dir="auto">{{person['username']}}</strong>{{(' · ' + _('admin')) if person['is_admin'] else ''}}{{(' · ' + _('you')) if person['id'] == user.id else ''}} <span class="muted">· {{n_('{n} entry', '{n} entries', person['entries'])}} · <span translate="no">{{person['timezone']}}</span></span></p>
    % for link in linked.get(person['id'], []):
    % said = _html('Signs in through the proxy as <bdi dir="auto">{name}</bdi>', name=link['subject']) if link['method'] == 'proxy' else _html('Signs in with <bdi dir="auto">{provider}</bdi> as ID <code translate="no">{id}</code>', provider=single_sign_on, id=link['subject'])
    % when = _('linked {day}, last used {last}', day=i18n.day(helpers.utc_day(link['created_at'])), last=i18n.day(helpers.utc_day(link['last_used_at']))) if link['last_used_at'] else _('linked {day}, not used yet', day=i18n.day(helpers.utc_day(link['created_at'])))
    % if person['id'] == user.id:
    <p class="linked">{{!said}} <span class="muted">{{when}}</span></p>
    % else:
    <form method="post" action="/settings/users/{{person['id']}}/identities/{{link['id']}}/delete" class="actions linked">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <span>{{!said}} <span class="muted">{{when}}</span></span>
      <button type="submit" class="link">{{_('Unlink')}}<span class="skip" dir="auto"> {{link['subject']}}</span></button>
    </form>
    % end
    % end
    % if proxy and not any(link['method'] == 'proxy' for link in linked.get(person['id'], [])):
    <form method="post" action="/settings/users/{{person['id']}}/identities" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label><span>{{!_html('Sign-in proxy user name of <bdi dir="auto">{name}</bdi>', name=person['username'])}}</span> <input name="subject" maxlength="255" autocomplete="off" required dir="auto"></label>
      <button type="submit" class="secondary">{{_('Link')}}</button>
    </form>
    % end
    % if single_sign_on and not any(link['method'] == 'oidc' for link in linked.get(person['id'], [])):
    <form method="post" action="/settings/users/{{person['id']}}/identities" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <input type="hidden" name="method" value="oidc">
      <label><span>{{!_html('ID at <bdi dir="auto">{provider}</bdi> of <bdi dir="auto">{name}</bdi>', provider=single_sign_on, name=person['username'])}}</span> <input name="subject" maxlength="255" autocomplete="off" required dir="auto"></label>
      <button type="submit" class="secondary">{{_('Link')}}</button>
    </form>
    % end
    % if link_by_email:
    <form method="post" action="/settings/users/{{person['id']}}/email" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label><span>{{!_html('Email address of <bdi dir="auto">{name}</bdi>', name=person['username'])}}</span> <input name="email" type="email" value="{{person['email'] or ''}}" autocomplete="off" maxlength="254" dir="ltr"></label>
      <button type="submit" class="secondary">{{_('Save')}}</button>
    </form>
    % end
    % if person['id'] != user.id and password_login:
    <form method="post" action="/settings/users/{{person['id']}}/password" class="inline-form">
      <input type="hidden" name="csrf_token" value="{{csrf_token}}">
      <label><span>{{!_html('New password for <bdi dir="auto">{name}</bdi>', name=person['username'])}}</span> <input type="password" name="password" autocomplete="new-password" minlength="8" required></label>
      <button type="submit" class="secondary">{{_('Reset password')}}</button>
    </form>
    <p class="muted">{{!_html('Resetting logs <bdi dir="auto">{name}</bdi> out everywhere.', name=person['username'])}} · <a href="/settings/users/{{person['id']}}/delete">{{!_html('Delete account<span class="skip"> <bdi dir="auto">{name}</bdi></span>', name=person['username'])}}</a></p>
    % elif person['id'] != user.id:
    <p class="muted"><a href="/settings/users/{{person['id']}}/delete">{{!_html('Delete account<span class="skip"> <bdi dir="auto">{name}</bdi></span>', name=person['username'])}}</a></p>
    % end
  </li>
% end
</ul>
