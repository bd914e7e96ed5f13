// The kiosk's service worker (issue 11, the tablet off the network), served as /kiosk/sw.js with the
// scope /kiosk (KioskDevice prepends self.HAR_KIOSK_SHELL_VERSION, a hash of Public/). It keeps the
// offline shell (/kiosk/offline: the attract, photo and form screens run by the page alone) and the
// static files it names in a cache named after that version. Kiosk pages go to the network first;
// when it cannot be reached, any kiosk screen gets the shell. It keeps nothing of a visitor: pages are
// never stored, only the shell. The idle reset spares this worker, its cache and the kiosk's outbox.
var CACHE = 'har-kiosk-shell-' + (self.HAR_KIOSK_SHELL_VERSION || 'dev');
var SHELL = '/kiosk/offline';

self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return fetch(SHELL, { credentials: 'same-origin', cache: 'no-cache' }).then(function (response) {
      if (!response.ok || response.redirected) throw new Error('no shell');
      return response.text().then(function (html) {
        var assets = [];
        html.replace(/(?:src|href)="(\/static\/[^"]+)"/g, function (all, url) {
          assets.push(url.replace(/&amp;/g, '&'));
          return all;
        });
        var page = new Response(html, { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
        return Promise.all(assets.map(function (url) {
          return fetch(url, { credentials: 'same-origin' }).then(function (asset) {
            if (!asset.ok) throw new Error('not kept: ' + url);
            return cache.put(url, asset);
          });
        })).then(function () { return cache.put(SHELL, page); });
      });
    });
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf('har-kiosk-shell-') === 0 && name !== CACHE;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (request.method !== 'GET') return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  var kioskPage = request.mode === 'navigate' && (url.pathname === '/kiosk' || url.pathname.indexOf('/kiosk/') === 0);
  var fromCache = kioskPage ? SHELL : (url.pathname.indexOf('/static/') === 0 ? request : null);
  if (!fromCache) return;
  event.respondWith(fetch(request).catch(function (error) {
    return caches.open(CACHE).then(function (cache) { return cache.match(fromCache); }).then(function (kept) {
      if (kept) return kept;
      throw error;
    });
  }));
});
