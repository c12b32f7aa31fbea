% rebase('layout.tpl', title=_('Log out'))
<h1>{{_('Log out')}}</h1>
% if proxied:
<p class="muted">{{_('You are signed in through your sign-in proxy. Logging out here takes you to it to sign out there too.') if logout_url else _('You are signed in through your sign-in proxy: it signs you in here again until you sign out there.')}}</p>
% elif single_sign_on and logout_url:
<p class="muted">{{_('You signed in with single sign-on. Logging out here takes you to the sign-in provider to sign out there too.')}}</p>
% end
<form method="post" action="/logout" class="card" id="logout-form">
  <input type="hidden" name="csrf_token" value="{{csrf_token}}">
  <fieldset class="js-only" id="outbox-choice" hidden>
    <legend id="outbox-waiting"></legend>
    <label class="inline"><input type="radio" name="discard_outbox" value="0" checked> {{_('Keep them: they are sent after the next log-in on this device')}}</label>
    <label class="inline"><input type="radio" name="discard_outbox" id="discard-outbox" value="1"> {{_('Discard them (a shared device)')}}</label>
  </fieldset>
  <button type="submit">{{_('Log out of this browser')}}</button>
</form>
