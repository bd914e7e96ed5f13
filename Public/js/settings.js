// Settings (SET-01..03): the panel slides in from the right over a dimmed page; Escape, the dimmed
// area and the close button close it; focus moves into it and back to the gear. Saving posts JSON to
// /settings (CSRF header) and updates the page's settings block, which other scripts read. An ES module.
import { postJSON } from './core/http.js';
import { format, t, waitingCount, forget } from './device-user.js';
import { countOwner, clearOwner } from './held-photos.js';

var panel, overlay, opener, lastFocus = null;
var CLOSE_MS = 200;

function focusable() {
  return Array.prototype.filter.call(
    panel.querySelectorAll('a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"])'),
    function (node) { return node.offsetParent !== null; });
}

function open(event) {
  if (event) event.preventDefault();
  lastFocus = document.activeElement;
  overlay.hidden = false;
  panel.hidden = false;
  // Next frame, so the transition runs from the off-screen position.
  requestAnimationFrame(function () {
    overlay.classList.add('is-open');
    panel.classList.add('is-open');
  });
  opener.setAttribute('aria-expanded', 'true');
  document.body.classList.add('has-panel');
  var first = document.getElementById('gps-accuracy');
  (first || panel).focus();
}

function close() {
  if (panel.hidden) return;
  panel.classList.remove('is-open');
  overlay.classList.remove('is-open');
  opener.setAttribute('aria-expanded', 'false');
  document.body.classList.remove('has-panel');
  setTimeout(function () { panel.hidden = true; overlay.hidden = true; }, CLOSE_MS);
  (lastFocus && document.contains(lastFocus) ? lastFocus : opener).focus();
}

function onKey(event) {
  if (panel.hidden) return;
  if (event.key === 'Escape') { event.preventDefault(); close(); return; }
  if (event.key !== 'Tab') return;
  // Keep Tab inside the panel while it is open (it is modal).
  var nodes = focusable();
  if (!nodes.length) return;
  var first = nodes[0], last = nodes[nodes.length - 1];
  if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
  else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
}

function setError(id, message) {
  var input = document.getElementById(id);
  var box = document.getElementById(id + '-error');
  if (box) box.textContent = message || '';
  if (input) { if (message) input.setAttribute('aria-invalid', 'true'); else input.removeAttribute('aria-invalid'); }
}

function wholeIn(value, low, high) {
  if (!/^\s*\d{1,9}\s*$/.test(value)) return null;
  var n = parseInt(value, 10);
  return n >= low && n <= high ? n : null;
}

function onSubmit(event) {
  var form = event.target;
  event.preventDefault();
  var statusBox = document.getElementById('settings-status');
  var accuracy = wholeIn(document.getElementById('gps-accuracy').value, 1, 1000);
  var alertSeconds = wholeIn(document.getElementById('gps-alert').value, 5, 3600);
  setError('gps-accuracy', accuracy === null ? form.dataset.errorAccuracy : '');
  setError('gps-alert', alertSeconds === null ? form.dataset.errorAlert : '');
  statusBox.textContent = '';
  if (accuracy === null || alertSeconds === null) {
    document.getElementById(accuracy === null ? 'gps-accuracy' : 'gps-alert').focus();
    return;
  }
  var payload = {
    gpsAccuracyMetres: accuracy, gpsAlertSeconds: alertSeconds,
    wirelessOnly: document.getElementById('wireless-only').checked
  };
  postJSON('/settings', payload, 15000).then(function (result) {
    if (result.status === 200 && result.body) {
      var block = document.getElementById('har-settings');
      if (block) block.textContent = JSON.stringify({
        gpsAccuracyMetres: result.body.gpsAccuracyMetres, gpsAlertSeconds: result.body.gpsAlertSeconds,
        wirelessOnly: result.body.wirelessOnly
      });
      statusBox.textContent = result.body.message || form.dataset.saved;
      document.dispatchEvent(new CustomEvent('har:settings', { detail: payload }));
    } else if (result.status === 422 && result.body && result.body.fields) {
      setError('gps-accuracy', result.body.fields.gpsAccuracy || '');
      setError('gps-alert', result.body.fields.gpsAlert || '');
    } else if (result.status !== 401) {
      statusBox.textContent = form.dataset.failed;
    }
  }, function () { statusBox.textContent = form.dataset.failed; });
}

// Sign-out (SET-03, OFF-03): one handler asks, in turn, what the device still keeps for this user.
// Reports waiting on the device (device-sync.js, the outbox) stay there for this user's next sign-in:
// ask before leaving them. Photos held for a wireless network (held-photos.js) would stay on a shared
// device (a kiosk tablet) after they leave: signing out deletes them, staying keeps them to be sent.
// Either answer "stay" leaves everything as it was, so the next sign-out asks again; the device
// forgets who is signed in only when the form really goes.
var signingOut = false;

// A store that never answers (blocked by another tab, a browser bug) must not stop the sign-out.
function within(promise, fallback) {
  return new Promise(function (resolve) {
    var timer = setTimeout(function () { resolve(fallback); }, 3000);
    Promise.resolve(promise).then(function (value) { clearTimeout(timer); resolve(value); },
      function () { clearTimeout(timer); resolve(fallback); });
  });
}

function onSignOut(event) {
  var form = event.target;
  event.preventDefault();
  if (signingOut) return;   // a second click while the first is being asked about
  signingOut = true;
  var owner = Number(form.getAttribute('data-owner'));
  var stay = function () { signingOut = false; };
  var go = function () {
    forget();
    form.submit();
  };
  within(waitingCount(), 0).then(function (reports) {
    if (reports && !window.confirm(format(t('signOutAsk'), { n: reports }))) { stay(); return; }
    return within(owner ? countOwner(owner) : 0, 0).then(function (count) {
      if (!count) { go(); return; }
      var text = count === 1 ? form.getAttribute('data-held-one')
        : form.getAttribute('data-held-many').replace('{n}', String(count));
      if (!window.confirm(text)) { stay(); return; }
      within(clearOwner(owner), false).then(go);
    });
  });
}

document.addEventListener('DOMContentLoaded', function () {
  var form = document.getElementById('settings-form');
  if (form) form.addEventListener('submit', onSubmit);
  var signOut = document.getElementById('sign-out-form');
  if (signOut) signOut.addEventListener('submit', onSignOut);
  panel = document.getElementById('settings-panel');
  overlay = document.getElementById('settings-overlay');
  opener = document.getElementById('settings-open');
  if (!panel || !overlay || !opener) return;
  opener.addEventListener('click', open);
  overlay.addEventListener('click', close);
  document.getElementById('settings-close').addEventListener('click', close);
  document.addEventListener('keydown', onKey);
});
