<h1>{{_('Settings')}}</h1>
<nav class="settings-nav" aria-label="{{_('Settings')}}">
% for key, href, label in sections:
  <a href="{{href}}" aria-current="{{'page' if key == section else 'false'}}">{{_(label)}}</a>
% end
</nav>
<script type="module" src="{{helpers.static('js/settings_nav.js')}}"></script>
% include('_errors.tpl', errors=errors)
