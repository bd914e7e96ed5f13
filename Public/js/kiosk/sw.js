// The kiosk's service worker (the tablet off the network), an ES module kept in Public/js/kiosk/ and
// served as /kiosk/sw.js with the scope /kiosk (KioskDevice puts the shell's version and the static
// files' list in its first line). It keeps, in the cache core/shell-cache.js manages, the offline shell
// (/kiosk/offline: the attract, photo and form screens run by the page alone) in each of the kiosk's
// languages, and every static file. Kiosk pages go to the network first; when it cannot be reached,
// any kiosk screen gets the shell. It keeps nothing of a visitor: pages are never stored, only the
// shell. The idle reset spares this worker, its cache and the kiosk's outbox.
import { assetKey, cacheName, dropOlder, fetchKept, keepAssets, networkFirst } from '/static/js/core/shell-cache.js';

const PREFIX = 'har-kiosk-shell-';
const SHELL = '/kiosk/offline';

function keepShell(url) {
  return fetchKept(url).then(function (response) { return response.text(); })
    .then(function (html) { return { url: url, html: html }; });
}

// The shell in each of the kiosk's languages (its body's data-shell-languages): `/kiosk/offline` as the
// server gave it (the tablet's language then) and `/kiosk/offline?lang=xx` for each, so that the
// language buttons work off the network. The shells go in last, once every static file is kept.
self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(cacheName(PREFIX)).then(function (cache) {
    return keepShell(SHELL).then(function (first) {
      const codes = (/data-shell-languages="([^"]*)"/.exec(first.html) || [])[1] || '';
      return Promise.all(codes.split(',').filter(Boolean).map(function (code) {
        return keepShell(SHELL + '?lang=' + encodeURIComponent(code));
      })).then(function (others) { return [first].concat(others); });
    }).then(function (shells) {
      return keepAssets(cache).then(function () {
        return Promise.all(shells.map(function (shell) {
          return cache.put(shell.url, new Response(shell.html, { headers: { 'Content-Type': 'text/html; charset=utf-8' } }));
        }));
      });
    });
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener('activate', function (event) {
  event.waitUntil(dropOlder(PREFIX).then(function () { return self.clients.claim(); }));
});

// The server says this tablet is not (or no longer) a kiosk: the worker and its shell go; the kiosk's
// outbox (IndexedDB) is left as it is.
function notEnrolled() {
  caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name.indexOf(PREFIX) === 0; })
      .map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.registration.unregister(); }).catch(function () {});
}

self.addEventListener('fetch', function (event) {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const kioskPage = request.mode === 'navigate' && (url.pathname === '/kiosk' || url.pathname.indexOf('/kiosk/') === 0);
  const asset = assetKey(url);
  if (!kioskPage && !asset) return;
  // A kiosk screen asked in a language (`?lang=`, the shell's own links) gets the shell in it.
  const lang = url.searchParams.get('lang');
  event.respondWith(networkFirst(request, PREFIX, function (cache) {
    if (!kioskPage) return cache.match(asset);
    return (lang ? cache.match(SHELL + '?lang=' + encodeURIComponent(lang)) : Promise.resolve(null))
      .then(function (kept) { return kept || cache.match(SHELL); });
  }, function (response) {
    if (kioskPage && response.headers.get('X-HAR-Kiosk') === 'not-enrolled') notEnrolled();
  }));
});
