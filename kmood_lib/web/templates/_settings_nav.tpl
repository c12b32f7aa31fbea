<h1>Settings</h1>
<nav class="settings-nav" aria-label="Settings">
% for key, href, label in sections:
  <a href="{{href}}" aria-current="{{'page' if key == section else 'false'}}">{{label}}</a>
% end
</nav>
% include('_errors.tpl', errors=errors)
