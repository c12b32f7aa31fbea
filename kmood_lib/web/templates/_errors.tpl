% if errors:
<div class="errors" role="alert">
  <strong>Please check:</strong>
  <ul>
  % for field, message in errors.items():
    <li>{{field}}: {{message}}</li>
  % end
  </ul>
</div>
% end
