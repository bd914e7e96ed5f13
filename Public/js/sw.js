// The volunteer's service worker (OFF-01/04), an ES module served as /sw.js (ServiceWorkerRoute puts
// the shell's version and the static files' list in its first line). It keeps the app shell in the
// cache core/shell-cache.js manages: the creation, submission and list pages as the device runs them
// alone (/app-shell/…) and every static file. Requests go to the network first; when it cannot be
// reached, /reports/new, /reports/new/submit and /reports get the shell and the static files their
// copies. A new version installs beside the running one and takes over at the next start of the app
// (no skipWaiting: never in the middle of a report). Background Sync ('har-outbox') sends the
// device's outbox (outbox.js) for the user signed in, when the browser has it.
import { send } from '/static/js/outbox.js';
import { assetKey, cacheName, dropOlder, fetchKept, keepAssets, networkFirst } from '/static/js/core/shell-cache.js';

const PREFIX = 'har-shell-';
const SHELL = { '/reports/new': '/app-shell/new', '/reports/new/submit': '/app-shell/submit', '/reports': '/app-shell/list' };

self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(cacheName(PREFIX)).then(function (cache) {
    return Promise.all(Object.keys(SHELL).map(function (path) {
      return fetchKept(SHELL[path]).then(function (response) { return cache.put(SHELL[path], response); });
    }).concat([keepAssets(cache)]));
  }));
});

self.addEventListener('activate', function (event) { event.waitUntil(dropOlder(PREFIX)); });

self.addEventListener('fetch', function (event) {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const shell = request.mode === 'navigate' ? SHELL[url.pathname.replace(/\/$/, '') || '/'] : null;
  const key = shell || assetKey(url);
  if (!key) return;
  event.respondWith(networkFirst(request, PREFIX, function (cache) { return cache.match(key); }));
});

// Background Sync: the outbox of whoever is signed in now (never another user's records).
self.addEventListener('sync', function (event) {
  if (event.tag !== 'har-outbox') return;
  event.waitUntil(fetch('/api/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
    .then(function (response) {
      if (response.status !== 200) return null;
      return response.json().then(function (session) { return send(session.user, session.csrf); });
    }).then(function (result) {
      // Still waiting (the server down again): the browser tries this sync again later.
      if (result && result.waiting > 0 && !result.signedOut) throw new Error('still waiting');
    }));
});
