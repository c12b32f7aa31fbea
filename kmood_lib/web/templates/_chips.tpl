<div class="chips">
% for activity in members:
  <input type="checkbox" name="activity" value="{{activity['name']}}" id="activity-{{activity['id']}}"{{' checked' if activity['name'] in values.get('activities', ()) else ''}}>
  <label for="activity-{{activity['id']}}" dir="auto">{{!'<span class="icon" aria-hidden="true">' if activity.get('icon') else ''}}{{activity.get('icon') or ''}}{{!'</span>' if activity.get('icon') else ''}}{{activity['name']}}</label>
% end
</div>
