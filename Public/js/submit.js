// Report submission (SUB-01..06): photo removal in place, suggestions near the photos, and a Submit
// that cannot be sent twice by a double click (the server's token makes a replay harmless anyway).
(function () {
  'use strict';
  document.addEventListener('DOMContentLoaded', function () {
    var block = document.getElementById('submit-data');
    var page = {};
    try { page = JSON.parse(block.textContent); } catch (e) { page = {}; }
    var strip = document.getElementById('photo-strip');
    var labels = {
      alt: strip ? strip.getAttribute('data-alt') : '', remove: strip ? strip.getAttribute('data-remove') : '',
      removed: page.removed, failed: page.failed
    };
    HARPhotos.wire(labels);

    // Suggestions may have changed since the page was made (a photo removed): ask again.
    function refreshSuggestions() {
      fetch('/api/drafts/' + page.draft + '/suggestions', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) {
          if (!body || !body.names) return;
          var list = document.getElementById('name-suggestions');
          list.textContent = '';
          body.names.forEach(function (name) {
            var option = document.createElement('option');
            option.value = name;
            list.appendChild(option);
          });
        }).catch(function () {});
    }
    HARPhotos.onRemoved(refreshSuggestions);

    var form = document.getElementById('submit-form');
    var button = document.getElementById('submit');
    form.addEventListener('submit', function (event) {
      if (form.getAttribute('data-sent') === 'true') { event.preventDefault(); return; }
      if (HARPhotos.count() === 0) {
        event.preventDefault();
        HARPhotos.say(page.noPhotos);
        return;
      }
      form.setAttribute('data-sent', 'true');
      button.setAttribute('aria-busy', 'true');
      button.textContent = button.getAttribute('data-busy-label');
    });
  });
})();
