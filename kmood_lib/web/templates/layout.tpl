<!doctype html>
<html lang="{{i18n.html_lang}}" dir="{{i18n.direction}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="#3553d9">
% # own_title: the title is what the person wrote (a goal's name), not words to translate.
<title{{!' dir="auto"' if get('own_title') else ''}}>{{title}} · k-mood</title>
<link rel="stylesheet" href="{{helpers.static('style.css')}}">
% if get('print_css'):
<link rel="stylesheet" href="{{print_css}}" media="print">
% end
% if get('bare'):
<meta name="robots" content="noindex, nofollow, noarchive">
% end
<link rel="icon" href="{{helpers.static('icons/icon.svg')}}" type="image/svg+xml">
<link rel="apple-touch-icon" href="{{helpers.static('icons/icon-192.png')}}">
<link rel="manifest" href="/manifest.webmanifest">
% include('_script_words.tpl')
% if get('user'):
<script defer src="{{helpers.static('js/outbox.js')}}"></script>
<script type="module" src="{{helpers.static('js/offline.js')}}"></script>
<script type="module" src="{{helpers.static('js/outbox_panel.js')}}"></script>
% end
% for script in get('scripts', ()):
<script type="module" src="{{helpers.static('js/' + script)}}"></script>
% end
</head>
% if get('user'):
<body data-user="{{user.id}}">
% else:
<body>
% end
<a class="skip" href="#main">{{_('Skip to content')}}</a>
% if not get('bare'):
<header class="top">
  <a class="brand" href="/">k-mood</a>
  % if get('user'):
  <nav class="tabs" aria-label="{{_('Main')}}">
    % for href, label, key in (('/', _('Log'), 'log'), ('/entries', _('History'), 'history'), ('/calendar', _('Year'), 'calendar'), ('/stats', _('Stats'), 'stats'), ('/settings', _('Settings'), 'settings')):
    <a href="{{href}}" aria-current="{{'page' if get('active') == key else 'false'}}">{{!helpers.icon(key)}}<span>{{label}}</span></a>
    % end
  </nav>
  <span class="who" dir="auto">{{user.username}}</span>
  % end
</header>
% end
% if get('wide'):
<main id="main" class="wide">
% else:
<main id="main">
% end
% if get('worker_missing'):
<p class="alert" role="alert">{{!_html('<strong>No background worker is running.</strong> Weather, places, songs and reminders wait until <code translate="no">{program}</code> runs beside the server.', program='kmood_worker.py')}} <a href="/admin/jobs">{{_('Jobs and workers')}}</a></p>
% end
% if get('notice'):
<p class="notice" role="status">{{notice}}</p>
% end
{{!base}}
</main>
</body>
</html>
