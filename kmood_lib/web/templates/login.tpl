% rebase('layout.tpl', title=_('Log in'))
<h1>{{_('Log in')}}</h1>
% if error:
<p class="error" role="alert">{{_(error)}}</p>
% end
% if signed_out:
<p class="notice" role="status">{{_('You are logged out.')}}</p>
% end
% if unlinked and unlinked.method == 'oidc':
<div class="error" role="alert">
  % if unlinked.reason == 'not in the group':
  <p>{{!_html('You signed in at <bdi dir="auto">{provider}</bdi>, but only members of the group chosen for k-mood get an account here.', provider=single_sign_on)}}</p>
  % else:
  <p>{{!_html('You signed in at <bdi dir="auto">{provider}</bdi>, but no k-mood account is linked to that sign-in yet.', provider=single_sign_on)}} {{_('Log in with your password and link it in Settings, or ask an admin to link it in Settings › Household with this ID:') if password_login else _('Ask an admin to link it in Settings › Household with this ID:')}}</p>
  <p><code class="linked" translate="no">{{unlinked.subject}}</code></p>
  % end
</div>
% elif unlinked:
<p class="error" role="alert">{{!_html('Your sign-in proxy says you are <bdi dir="auto">{name}</bdi>, and only members of the group chosen for k-mood get an account here.', name=unlinked.subject) if unlinked.reason == 'not in the group' else _html('Your sign-in proxy says you are <bdi dir="auto">{name}</bdi>, but no k-mood account is linked to that name yet. An admin links it in Settings › Household.', name=unlinked.subject)}}</p>
% end
% if single_sign_on or passkeys_on:
<div class="card sign-in-choices"{{'' if single_sign_on else ' hidden'}}>
  % if single_sign_on:
  <a class="button" href="{{single_sign_on_href}}" id="single-sign-on"><span>{{!_html('Sign in with <bdi dir="auto">{provider}</bdi>', provider=single_sign_on)}}</span></a>
  % end
  % if passkeys_on:
  <button type="button" class="{{'secondary' if single_sign_on else ''}}" id="passkey-sign-in" data-form-token="{{form_token}}" data-next="{{next}}" hidden>{{_('Sign in with a passkey')}}</button>
  <p class="error" role="alert" id="passkey-sign-in-error" hidden></p>
  % end
</div>
% end
% if password_login:
<form method="post" action="/login" class="card">
  <input type="hidden" name="csrf_token" value="{{form_token}}">
  <input type="hidden" name="next" value="{{next}}">
  <label>{{_('Username')}} <input name="username" autocomplete="username" required{{'' if single_sign_on else ' autofocus'}} value="{{username}}" dir="auto"></label>
  <label>{{_('Password')}} <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit"{{!' class="secondary"' if single_sign_on else ''}}>{{_('Log in')}}</button>
</form>
% elif not single_sign_on:
<p class="card">{{_('This k-mood signs you in through your household’s sign-in proxy, not with a password: open it at the address that goes through the proxy.')}}</p>
% end
<nav class="languages" aria-label="{{_('Language')}}">
  <ul>
  % for code, name in languages:
    <li><a href="/login?lang={{code}}" lang="{{code.replace('_', '-')}}" hreflang="{{code.replace('_', '-')}}" aria-current="{{'true' if code == i18n.code else 'false'}}">{{name}}</a></li>
  % end
  </ul>
</nav>
