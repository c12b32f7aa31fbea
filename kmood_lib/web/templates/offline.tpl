% rebase('layout.tpl', title=_('No connection'))
<h1>{{_('No connection')}}</h1>
<p class="alert" role="status">{{!_html('<strong>k-mood cannot be reached from this device just now.</strong> This page needs the server; it opens again once the connection is back.')}}</p>
<p id="offline-waiting" class="js-only" hidden></p>
<p class="actions"><a class="button" href="/">{{_('Log an entry')}}</a> <a class="button secondary js-only" id="offline-retry" href="/offline" hidden>{{_('Try again')}}</a></p>
<p class="muted">{{_('Logging works without a connection: what you log waits on this device and is sent when k-mood is reachable again.')}}</p>
