% if errors:
<div class="errors" role="alert">
  <strong>{{_('Please check:')}}</strong>
  <ul>
  % for field, message in errors.items():
    <li>{{!said_html('{field}: {problem}', field=_(field), problem=said_html(message))}}</li>
  % end
  </ul>
</div>
% end
