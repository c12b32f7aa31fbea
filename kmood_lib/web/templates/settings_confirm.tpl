% rebase('layout.tpl', title='Delete ' + what)
% if subject is not None:
<h1>Delete the {{what}} “<bdi>{{subject}}</bdi>”?</h1>
% else:
<h1>Delete {{what}}?</h1>
% end
% names = get('names', ())
% if names:
<p class="names">
  % for name in names:
  <span class="name" dir="auto">{{name}}</span>
  % end
</p>
% end
<ul>
% for line in consequences:
  <li>{{line}}</li>
% end
</ul>
<form method="post" action="{{action}}" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  % for name, value in get('hidden', ()):
  <input type="hidden" name="{{name}}" value="{{value}}">
  % end
  <button type="submit" class="danger">Delete {{what}}</button>
  <a class="button secondary" href="{{back}}">Keep {{'them' if subject is None else 'it'}}</a>
</form>
