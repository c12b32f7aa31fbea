% rebase('layout.tpl', title=_('Log in'))
<h1>{{_('Log in')}}</h1>
% if error:
<p class="error" role="alert">{{_(error)}}</p>
% end
<form method="post" action="/login" class="card">
  <input type="hidden" name="csrf_token" value="{{form_token}}">
  <input type="hidden" name="next" value="{{next}}">
  <label>{{_('Username')}} <input name="username" autocomplete="username" required autofocus value="{{username}}" dir="auto"></label>
  <label>{{_('Password')}} <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">{{_('Log in')}}</button>
</form>
<nav class="languages" aria-label="{{_('Language')}}">
  <ul>
  % for code, name in languages:
    <li><a href="/login?lang={{code}}" lang="{{code.replace('_', '-')}}" hreflang="{{code.replace('_', '-')}}" aria-current="{{'true' if code == i18n.code else 'false'}}">{{name}}</a></li>
  % end
  </ul>
</nav>
