% from kmood_lib.web.script_words import page_block
<script type="application/json" id="kmood-words">{{!page_block(i18n)}}</script>
