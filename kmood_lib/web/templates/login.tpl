% rebase('layout.tpl', title=_('Log in'))
<h1>{{_('Log in')}}</h1>
% if error:
<p class="error" role="alert">{{_(error)}}</p>
% end
% if unlinked:
<p class="error" role="alert">{{!_html('Your sign-in proxy says you are <bdi dir="auto">{name}</bdi>, and only members of the group chosen for k-mood get an account here.', name=unlinked.subject) if unlinked.reason == 'not in the group' else _html('Your sign-in proxy says you are <bdi dir="auto">{name}</bdi>, but no k-mood account is linked to that name yet. An admin links it in Settings › Household.', name=unlinked.subject)}}</p>
% end
% if password_login:
<form method="post" action="/login" class="card">
  <input type="hidden" name="csrf_token" value="{{form_token}}">
  <input type="hidden" name="next" value="{{next}}">
  <label>{{_('Username')}} <input name="username" autocomplete="username" required autofocus value="{{username}}" dir="auto"></label>
  <label>{{_('Password')}} <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">{{_('Log in')}}</button>
</form>
% else:
<p class="card">{{_('This k-mood signs you in through your household’s sign-in proxy, not with a password: open it at the address that goes through the proxy.')}}</p>
% end
<nav class="languages" aria-label="{{_('Language')}}">
  <ul>
  % for code, name in languages:
    <li><a href="/login?lang={{code}}" lang="{{code.replace('_', '-')}}" hreflang="{{code.replace('_', '-')}}" aria-current="{{'true' if code == i18n.code else 'false'}}">{{name}}</a></li>
  % end
  </ul>
</nav>
