% rebase('layout.tpl', title='Delete ' + what)
<h1>Delete the {{what}} “{{subject}}”?</h1>
<ul>
% for line in consequences:
  <li>{{line}}</li>
% end
</ul>
<form method="post" action="{{action}}" class="actions">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <button type="submit" class="danger">Delete {{what}}</button>
  <a class="button secondary" href="{{back}}">Keep it</a>
</form>
