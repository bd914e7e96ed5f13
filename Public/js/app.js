// Shared helpers for every page (CSP: script-src 'self', so no inline script or handler anywhere).
// Exposes window.HAR: csrf(), settings(), postJSON(), showDialog(), formatTimes().
(function () {
  'use strict';

  function csrf() {
    var meta = document.querySelector('meta[name="har-csrf"]');
    return meta ? meta.getAttribute('content') : '';
  }

  // The signed-in user's settings, given by the server in <script type="application/json" id="har-settings">.
  function settings() {
    var block = document.getElementById('har-settings');
    if (!block) return { gpsAccuracyMetres: 20, gpsAlertSeconds: 60, wirelessOnly: false };
    try { return JSON.parse(block.textContent); } catch (e) { return { gpsAccuracyMetres: 20, gpsAlertSeconds: 60, wirelessOnly: false }; }
  }

  // POST JSON with the CSRF header; resolves {status, body} (body parsed when JSON). A 401 with
  // "signed_out" follows the server's redirect (platform session over: LOG-01). Rejects on network
  // failure or after timeoutMs, so no page waits forever on a slow platform.
  function postJSON(url, payload, timeoutMs) {
    var controller = typeof AbortController === 'function' ? new AbortController() : null;
    var timer = controller ? setTimeout(function () { controller.abort(); }, timeoutMs || 30000) : null;
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json', 'X-CSRF-Token': csrf() },
      body: JSON.stringify(payload || {}),
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      if (timer) clearTimeout(timer);
      return response.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
        if (response.status === 401 && body && body.error === 'signed_out' && body.redirect) {
          window.location.assign(body.redirect);
        }
        return { status: response.status, body: body };
      });
    }, function (error) {
      if (timer) clearTimeout(timer);
      throw error;
    });
  }

  // Shows the page's <dialog id="har-dialog"> with a title and message; focus returns where it was.
  function showDialog(title, message) {
    var dialog = document.getElementById('har-dialog');
    if (!dialog) return Promise.resolve();
    var previous = document.activeElement;
    document.getElementById('har-dialog-title').textContent = title;
    document.getElementById('har-dialog-message').textContent = message;
    return new Promise(function (resolve) {
      function closed() {
        dialog.removeEventListener('close', closed);
        if (previous && previous.focus && document.contains(previous)) previous.focus();
        resolve();
      }
      dialog.addEventListener('close', closed);
      if (typeof dialog.showModal === 'function') dialog.showModal(); else dialog.setAttribute('open', '');
      var ok = document.getElementById('har-dialog-ok');
      if (ok) ok.focus();
    });
  }

  // <time datetime="ISO" class="local-time">server fallback</time> → the user's locale and time zone
  // (LST-03), in the page's language.
  function formatTimes(root) {
    if (typeof Intl === 'undefined' || !Intl.DateTimeFormat) return;
    var format;
    try {
      format = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
    } catch (e) { return; }
    (root || document).querySelectorAll('time.local-time[datetime]').forEach(function (node) {
      var date = new Date(node.getAttribute('datetime'));
      if (!isNaN(date.getTime())) node.textContent = format.format(date);
    });
  }

  window.HAR = { csrf: csrf, settings: settings, postJSON: postJSON, showDialog: showDialog, formatTimes: formatTimes };
  document.addEventListener('DOMContentLoaded', function () { formatTimes(document); });
})();
