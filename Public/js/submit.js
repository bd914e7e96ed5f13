// Report submission (SUB-01..06): photo removal in place, suggestions near the photos, and a Submit
// that cannot be sent twice by a double click (the server's token makes a replay harmless anyway).
// With the network gone, Submit keeps the report in the device's outbox instead (OFF-02): when the
// browser says it is offline, and also when it believes it is online but the server does not answer
// (server down, captive Wi-Fi, a dropped connection): Submit goes through fetch for that reason, with
// the form's own fields, token and CSRF field, and falls back to the device only when no HTTP answer
// came. Without JavaScript the form posts as usual. An ES module: the photo row is photo-strip.js's.
import * as photoStrip from './photo-strip.js';
import * as outbox from './outbox.js';
import { owner as deviceOwner, t as deviceWord } from './device-user.js';

document.addEventListener('DOMContentLoaded', function () {
  var block = document.getElementById('submit-data');
  var page = {};
  try { page = JSON.parse(block.textContent); } catch (e) { page = {}; }
  var strip = document.getElementById('photo-strip');
  var labels = {
    alt: strip ? strip.getAttribute('data-alt') : '', remove: strip ? strip.getAttribute('data-remove') : '',
    removed: page.removed, failed: page.failed
  };
  photoStrip.wire(labels);

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
  photoStrip.onRemoved(refreshSuggestions);

  var form = document.getElementById('submit-form');
  var button = document.getElementById('submit');
  var FIELDS = ['name', 'designation', 'condition', 'occupancy', 'priority_category', 'owner_type', 'grade'];

  // Submit with the network gone (OFF-02): the report, its photos being on the server already, goes
  // into the device's outbox under the draft's id with this form's values and token, and the list
  // (the service worker's shell) shows it waiting; the outbox sends it, once, when the server answers.
  function keepOnDevice() {
    var owner = deviceOwner();
    if (!owner) return false;
    FIELDS.forEach(function (name) { if (form.elements[name]) form.elements[name].value = form.elements[name].value.trim(); });
    if (!form.checkValidity()) { idle(); form.reportValidity(); return true; }
    form.setAttribute('data-sent', 'true');
    checked.then(function () { return outbox.get(page.draft); }).then(function (record) {
      record = record || { id: page.draft, owner: String(owner), createdAt: Date.now(), photos: [], fromPage: true };
      record.status = 'waiting';
      record.token = form.elements.submit_token.value;
      record.fields = {};
      FIELDS.forEach(function (name) { record.fields[name] = form.elements[name].value; });
      record.serverPhotos = photoStrip.count();
      record.submittedAt = Date.now();
      return outbox.save(record);
    }).then(function () {
      window.location.assign('/reports');
    }, function (error) {
      form.removeAttribute('data-sent');
      idle();
      photoStrip.say(deviceWord(error && error.kind === 'quota' ? 'quota' : 'writeFailed'));
    });
    return true;
  }

  // Photos of this draft kept on the device when the network dropped (create/offline.js) are not on
  // the server yet: the creation page sends them first, then comes back here. A record that Continue
  // made for the device's submission page (create/offline.js), with no photo of its own, is not
  // needed now that the server's page is here: it goes (Submit keeps the report again if the server
  // cannot be reached then).
  var checked = Promise.resolve();
  if (navigator.onLine !== false) {
    checked = outbox.get(page.draft).then(function (record) {
      if (!record || record.status !== 'open') return;
      if (record.photos.length) window.location.replace('/reports/new');
      else return outbox.remove(record.id);
    }).catch(function () {});
  }

  form.addEventListener('submit', function (event) {
    if (form.getAttribute('data-sent') === 'true') { event.preventDefault(); return; }
    if (photoStrip.count() === 0) {
      event.preventDefault();
      photoStrip.say(page.noPhotos);
      return;
    }
    if (navigator.onLine === false) {
      event.preventDefault();
      if (keepOnDevice()) return;
      photoStrip.say(page.failed);
      return;
    }
    form.setAttribute('data-sent', 'true');
    button.setAttribute('aria-busy', 'true');
    button.textContent = button.getAttribute('data-busy-label');
    if (!window.fetch || !window.URLSearchParams || !window.AbortController) return;
    event.preventDefault();
    send();
  });

  var label = button.textContent;
  function idle() {
    button.removeAttribute('aria-busy');
    button.textContent = label;
  }

  // The form's own POST, by fetch: the server answers it as it answers the form (a 303 to the list
  // once queued, the page again with its messages when something is wrong), and the browser follows.
  // No HTTP answer at all (refused, dropped, or nothing within SEND_TIMEOUT): the report goes into the
  // device's outbox with this form's token, so that the outbox's later send is the same submission
  // (the server keeps a token once: a POST that arrived but whose answer was lost is not doubled).
  var SEND_TIMEOUT = 30000;
  function send() {
    var abort = new AbortController();
    var timer = setTimeout(function () { abort.abort(); }, SEND_TIMEOUT);
    fetch(form.action, {
      method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(form)),
      headers: { 'Accept': 'text/html' }, signal: abort.signal
    }).then(function (response) {
      clearTimeout(timer);
      if (response.redirected && new URL(response.url).origin === window.location.origin) {
        window.location.assign(response.url);
        return;
      }
      // Any other answer (the form again with its messages, an error page): the form posts as it
      // would without this script, and the browser shows the server's page. The same token twice
      // is the same submission, so the second POST changes nothing the first did not. (The form's
      // own method: form.submit is the Submit button, whose id is "submit".)
      HTMLFormElement.prototype.submit.call(form);
    }, function () {
      clearTimeout(timer);
      form.removeAttribute('data-sent');
      if (keepOnDevice()) return;
      idle();
      photoStrip.say(page.failed);
    });
  }
});
