// Report submission (SUB-01..06): photo removal in place, suggestions near the photos, and a Submit
// that cannot be sent twice by a double click (the server's token makes a replay harmless anyway).
// With the network gone, Submit keeps the report in the device's outbox instead (OFF-02).
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
    var FIELDS = ['name', 'designation', 'condition', 'occupancy', 'priority_category', 'owner_type', 'grade'];

    // Submit with the network gone (OFF-02): the report, its photos being on the server already, goes
    // into the device's outbox under the draft's id with this form's values and token, and the list
    // (the service worker's shell) shows it waiting; the outbox sends it, once, when the server answers.
    function keepOnDevice() {
      var owner = window.HARDevice && HARDevice.owner();
      if (!window.HAROutbox || !owner) return false;
      FIELDS.forEach(function (name) { if (form.elements[name]) form.elements[name].value = form.elements[name].value.trim(); });
      if (!form.checkValidity()) { form.reportValidity(); return true; }
      form.setAttribute('data-sent', 'true');
      HAROutbox.get(page.draft).then(function (record) {
        record = record || { id: page.draft, owner: String(owner), createdAt: Date.now(), photos: [], fromPage: true };
        record.status = 'waiting';
        record.token = form.elements.submit_token.value;
        record.fields = {};
        FIELDS.forEach(function (name) { record.fields[name] = form.elements[name].value; });
        record.serverPhotos = HARPhotos.count();
        record.submittedAt = Date.now();
        return HAROutbox.save(record);
      }).then(function () {
        window.location.assign('/reports');
      }, function (error) {
        form.removeAttribute('data-sent');
        var words = window.HARDevice;
        HARPhotos.say(words ? words.t(error && error.kind === 'quota' ? 'quota' : 'writeFailed') : page.failed);
      });
      return true;
    }

    // Photos of this draft kept on the device when the network dropped (create/offline.js) are not on
    // the server yet: the creation page sends them first, then comes back here.
    if (window.HAROutbox && navigator.onLine !== false) {
      HAROutbox.get(page.draft).then(function (record) {
        if (record && record.status === 'open' && record.photos.length) window.location.replace('/reports/new');
      }, function () {});
    }

    form.addEventListener('submit', function (event) {
      if (form.getAttribute('data-sent') === 'true') { event.preventDefault(); return; }
      if (HARPhotos.count() === 0) {
        event.preventDefault();
        HARPhotos.say(page.noPhotos);
        return;
      }
      if (navigator.onLine === false) {
        event.preventDefault();
        if (keepOnDevice()) return;
        HARPhotos.say(page.failed);
        return;
      }
      form.setAttribute('data-sent', 'true');
      button.setAttribute('aria-busy', 'true');
      button.textContent = button.getAttribute('data-busy-label');
    });
  });
})();
