<div class="chips">
% for activity in members:
  <input type="checkbox" name="activity" value="{{activity['name']}}" id="activity-{{activity['id']}}"{{' checked' if activity['name'] in values.get('activities', ()) else ''}}>
  <label for="activity-{{activity['id']}}" dir="auto">{{activity['name']}}</label>
% end
</div>
