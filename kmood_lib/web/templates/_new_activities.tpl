<label class="new-activities">{{label}} <span class="muted">{{_('(separate with commas)')}}</span>
  <input name="new_activities" value="{{values.get('new_activities', '')}}" autocomplete="off" placeholder="{{_('for example: walk, friends')}}">
</label>
