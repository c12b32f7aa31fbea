<label class="new-activities">{{label}} <span class="muted">(separate with commas)</span>
  <input name="new_activities" value="{{values.get('new_activities', '')}}" autocomplete="off" placeholder="for example: walk, friends">
</label>
