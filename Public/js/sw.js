// The service worker (issue 12, OFF-01/04), served as /sw.js (ServiceWorkerRoute prepends
// self.HAR_SHELL_VERSION, a hash of Public/). It keeps the app shell in a cache named after that
// version: the creation, submission and list pages as the device runs them alone (/app-shell/…), the
// scripts, styles, icons and Leaflet. Requests go to the network first; when it cannot be reached,
// /reports/new, /reports/new/submit and /reports get the shell and the static files their copies.
// A new version installs beside the running one and takes over at the next start of the app (no
// skipWaiting: never in the middle of a report); its activation removes the older caches. Background
// Sync ('har-outbox') sends the device's outbox for the user signed in, when the browser has it.
importScripts('/static/js/ids.js', '/static/js/outbox.js');

var CACHE = 'har-shell-' + (self.HAR_SHELL_VERSION || 'dev');
var SHELL = { '/reports/new': '/app-shell/new', '/reports/new/submit': '/app-shell/submit', '/reports': '/app-shell/list' };
var ASSETS = [
  '/static/css/app.css', '/static/img/logo.svg', '/static/js/app.js', '/static/js/ids.js', '/static/js/outbox.js',
  '/static/js/device-sync.js', '/static/js/device-shell.js', '/static/js/settings.js', '/static/js/held-photos.js',
  '/static/js/photo-strip.js', '/static/js/list.js', '/static/js/submit.js',
  '/static/js/create/main.js', '/static/js/create/page.js', '/static/js/create/map.js', '/static/js/create/location.js',
  '/static/js/create/holding.js', '/static/js/create/uploads.js', '/static/js/create/limit.js',
  '/static/js/create/camera.js', '/static/js/create/offline.js', '/static/vendor/leaflet/leaflet.js', '/static/vendor/leaflet/leaflet.css'
];

// Only answers that are the real thing are kept: a shell page answered with the sign-in page (the
// session ended) would otherwise stand in for the creation page.
function keep(cache, url) {
  return fetch(url, { credentials: 'same-origin', cache: 'no-cache' }).then(function (response) {
    if (!response.ok || response.redirected) throw new Error('not kept: ' + url);
    return cache.put(url, response);
  });
}

self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    var urls = Object.keys(SHELL).map(function (path) { return SHELL[path]; }).concat(ASSETS);
    return Promise.all(urls.map(function (url) { return keep(cache, url); }));
  }));
});

self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf('har-shell-') === 0 && name !== CACHE;
    }).map(function (name) { return caches.delete(name); }));
  }));
});

self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (request.method !== 'GET') return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  var shell = request.mode === 'navigate' ? SHELL[url.pathname.replace(/\/$/, '') || '/'] : null;
  var fromCache = shell || (url.pathname.indexOf('/static/') === 0 ? url.pathname : null);
  if (!fromCache) return;
  event.respondWith(fetch(request).catch(function (error) {
    return caches.open(CACHE).then(function (cache) { return cache.match(fromCache); }).then(function (kept) {
      if (kept) return kept;
      throw error;
    });
  }));
});

// Background Sync: the outbox of whoever is signed in now (never another user's records).
self.addEventListener('sync', function (event) {
  if (event.tag !== 'har-outbox') return;
  event.waitUntil(fetch('/api/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
    .then(function (response) {
      if (response.status !== 200) return null;
      return response.json().then(function (session) { return self.HAROutbox.send(session.user, session.csrf); });
    }).then(function (result) {
      // Still waiting (the server down again): the browser tries this sync again later.
      if (result && result.waiting > 0 && !result.signedOut) throw new Error('still waiting');
    }));
});
