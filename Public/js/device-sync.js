// On every page (OFF-01/03/04/05): registers the service worker once signed in, remembers
// which user this browser is signed in as (the shell, offline, shows only that user's outbox), sends
// the device's outbox when the server answers (at load, on 'online', on returning to the page, and on
// a timer that backs off from 15 s to 10 min), shows the waiting reports at the top of the list
// (#device-list) with their photo count and a Delete that asks first, says when a session to renew
// holds them, and fills the settings panel's account of them. An ES module, the head's for a signed-in
// user: the outbox (outbox.js) and whose it is (device-user.js) are imported; the retry rhythm is the
// shared sender's. attempt() and render() are exported for the tests, which await a round.
import { backoff } from './core/sender.js';
import { discard, list, save, send } from './outbox.js';
import { format, owner, remember, t } from './device-user.js';

export { owner };

var delay = backoff(15000, 600000);
var timer = null;
var sending = false;

// The user a page from the server was made for (<meta name="har-user">): the device's outbox is
// shown and filed under them from the first moment, before `/api/device/session` answers, and when
// it cannot (another user's session may have ended without a sign-out on this browser). Not on the
// service worker's shell (main[data-mode]), which one cache keeps for every user of the device:
// there, the last user the server named.
function pageUser() {
  var main = document.getElementById('main');
  if (main && main.hasAttribute('data-mode')) return null;
  var meta = document.querySelector('meta[name="har-user"]');
  return meta ? meta.getAttribute('content') : null;
}

function session() {
  return fetch('/api/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
    .then(function (response) {
      if (response.status === 401) return { signedOut: true };
      if (response.status !== 200) throw new Error('unavailable');
      return response.json();
    }).then(function (answer) {
      if (answer.user) {
        remember(answer.user);
        register();
      }
      return answer;
    });
}

// An ES module (it imports the outbox and the shell cache); its imports are checked for a new version
// as the worker is, never from the HTTP cache.
var registered = false;
function register() {
  if (registered || !('serviceWorker' in navigator)) return;
  registered = true;
  navigator.serviceWorker.register('/sw.js', { scope: '/', type: 'module', updateViaCache: 'none' }).catch(function () { registered = false; });
}

function schedule() {
  if (timer) clearTimeout(timer);
  timer = setTimeout(attempt, delay.next());
}

// One round of sending; a round already running is not doubled.
export function attempt() {
  if (sending) return Promise.resolve();
  sending = true;
  var user = owner();
  return session().then(function (answer) {
    if (answer.signedOut) return { signedOut: true, waiting: -1 };
    user = answer.user;
    return send(answer.user, answer.csrf);
  }).then(function (result) {
    sending = false;
    signInNotice(result.signedOut);
    if (result.waiting > 0 && !result.signedOut) schedule(); else delay.reset();
    return show(user);
  }, function () {
    sending = false;
    schedule();
    return show(user);
  });
}

function signInNotice(signedOut) {
  var box = document.getElementById('outbox-error');
  if (!box || !owner()) return;
  list(owner()).then(function (records) {
    var waiting = records.filter(function (r) { return r.status === 'waiting'; }).length;
    if (signedOut && waiting) {
      box.textContent = '';
      var link = document.createElement('a');
      link.href = '/signin';
      link.textContent = t('signIn');
      box.appendChild(link);
      box.setAttribute('data-kind', 'signin');
      box.hidden = false;
    } else if (box.getAttribute('data-kind') !== 'storage') {
      box.hidden = true;
    }
  }, function () {});
}

// The waiting reports of this user at the top of the list.
function show(user) {
  var box = document.getElementById('device-list');
  if (!box || !user) return Promise.resolve();
  return list(user).then(function (records) {
    var waiting = records.filter(function (r) { return r.status === 'waiting'; });
    box.textContent = '';
    waiting.forEach(function (record) { box.appendChild(row(record)); });
    box.hidden = waiting.length === 0;
    var empty = document.getElementById('device-empty');
    if (empty) empty.hidden = waiting.length > 0;
    settingsPanel(records);
  }, function () {});
}

// The report's photos: those on the device, and those a report begun online had sent already.
function photoCount(record) { return record.photos.length + (record.serverPhotos || 0); }

function row(record) {
  var item = document.createElement('li');
  item.className = 'report-row device-row';
  item.id = 'device-' + record.id;
  item.setAttribute('data-device-id', record.id);
  var main = document.createElement('div');
  main.className = 'report-main';
  var name = document.createElement('p');
  name.className = 'report-name';
  name.textContent = (record.fields && record.fields.name) || '—';
  var state = document.createElement('p');
  state.className = 'report-detail device-state';
  state.textContent = t('waiting') + ' · ' + format(t('photoCount'), { n: photoCount(record) });
  main.appendChild(name);
  main.appendChild(state);
  if (record.lastError) {
    var error = document.createElement('p');
    error.className = 'report-detail status-attention';
    error.textContent = record.lastError;
    main.appendChild(error);
  }
  var side = document.createElement('div');
  side.className = 'report-side';
  var remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'delete-button device-delete';
  remove.setAttribute('aria-label', t('delete') + ': ' + name.textContent);
  remove.textContent = t('delete');
  remove.addEventListener('click', function () {
    if (!window.confirm(t('deleteAsk'))) return;
    discard(record.id).then(function () { show(owner()); });
  });
  side.appendChild(remove);
  item.appendChild(main);
  item.appendChild(side);
  return item;
}

// The settings panel: what is kept on this device, Send now, Delete (asks first).
function settingsPanel(records) {
  var box = document.getElementById('device-outbox-settings');
  if (!box) return;
  var waiting = records.filter(function (r) { return r.status === 'waiting'; });
  var photos = waiting.reduce(function (sum, r) { return sum + photoCount(r); }, 0);
  box.querySelector('.device-kept').textContent = waiting.length
    ? format(t('kept'), { n: waiting.length, p: photos }) : t('keptNone');
  box.querySelector('#device-send').hidden = !waiting.length;
  box.querySelector('#device-delete-all').hidden = !waiting.length;
}

function wireSettings() {
  var box = document.getElementById('device-outbox-settings');
  if (!box) return;
  box.querySelector('#device-send').addEventListener('click', function () {
    list(owner()).then(function (records) {
      // A report the server refused is tried again when the user asks.
      return Promise.all(records.filter(function (r) { return r.lastError; }).map(function (r) {
        delete r.lastError;
        return save(r);
      }));
    }).then(function () { delay.reset(); attempt(); });
  });
  box.querySelector('#device-delete-all').addEventListener('click', function () {
    if (!window.confirm(t('deleteAllAsk'))) return;
    // The reports the question counted (waiting), not the photos a creation page keeps for its draft.
    list(owner()).then(function (records) {
      return Promise.all(records.filter(function (r) { return r.status === 'waiting'; })
        .map(function (r) { return discard(r.id); }));
    }).then(function () { show(owner()); });
  });
}

function start() {
  wireSettings();
  var user = pageUser();
  if (user) remember(user);
  show(owner());
  attempt();
  window.addEventListener('online', function () { delay.reset(); attempt(); });
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'visible') attempt();
  });
}

// The list again, for this browser's user (the tests, after writing to the outbox themselves).
export function render() { return show(owner()); }

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
