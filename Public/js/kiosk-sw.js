// The kiosk's service worker (issue 11, the tablet off the network), served as /kiosk/sw.js with the
// scope /kiosk (KioskDevice prepends self.HAR_KIOSK_SHELL_VERSION, a hash of Public/). It keeps the
// offline shell (/kiosk/offline: the attract, photo and form screens run by the page alone), in each of
// the kiosk's languages, and the static files it names (ids.js among them) in a cache named after
// that version. Kiosk pages go to the network first;
// when it cannot be reached, any kiosk screen gets the shell. It keeps nothing of a visitor: pages are
// never stored, only the shell. The idle reset spares this worker, its cache and the kiosk's outbox.
var CACHE = 'har-kiosk-shell-' + (self.HAR_KIOSK_SHELL_VERSION || 'dev');
var SHELL = '/kiosk/offline';

// The shell in each of the kiosk's languages (its body's data-shell-languages): `/kiosk/offline` as
// the server gave it (the tablet's language then) and `/kiosk/offline?lang=xx` for each, so that the
// language buttons work off the network. The static files are those the shell names.
function keepShell(cache, url) {
  return fetch(url, { credentials: 'same-origin', cache: 'no-cache' }).then(function (response) {
    if (!response.ok || response.redirected) throw new Error('no shell: ' + url);
    return response.text();
  }).then(function (html) {
    return { url: url, html: html };
  });
}

self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return keepShell(cache, SHELL).then(function (first) {
      var codes = (/data-shell-languages="([^"]*)"/.exec(first.html) || [])[1] || '';
      return Promise.all(codes.split(',').filter(Boolean).map(function (code) {
        return keepShell(cache, SHELL + '?lang=' + encodeURIComponent(code));
      })).then(function (others) { return [first].concat(others); });
    }).then(function (shells) {
      var assets = [];
      shells.forEach(function (shell) {
        shell.html.replace(/(?:src|href)="(\/static\/[^"]+)"/g, function (all, url) {
          url = url.replace(/&amp;/g, '&');
          if (assets.indexOf(url) < 0) assets.push(url);
          return all;
        });
      });
      return Promise.all(assets.map(function (url) {
        return fetch(url, { credentials: 'same-origin' }).then(function (asset) {
          if (!asset.ok) throw new Error('not kept: ' + url);
          return cache.put(url, asset);
        });
      })).then(function () {
        return Promise.all(shells.map(function (shell) {
          return cache.put(shell.url, new Response(shell.html, { headers: { 'Content-Type': 'text/html; charset=utf-8' } }));
        }));
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
  if (!kioskPage && url.pathname.indexOf('/static/') !== 0) return;
  // A kiosk screen asked in a language (`?lang=`, the shell's own links) gets the shell in it.
  var lang = url.searchParams.get('lang');
  event.respondWith(fetch(request).then(function (response) {
    // The server says this tablet is not (or no longer) a kiosk: the worker and its shell go; the
    // kiosk's outbox (IndexedDB) is left as it is.
    if (kioskPage && response.headers.get('X-HAR-Kiosk') === 'not-enrolled') {
      caches.keys().then(function (names) {
        return Promise.all(names.filter(function (name) { return name.indexOf('har-kiosk-shell-') === 0; })
          .map(function (name) { return caches.delete(name); }));
      }).then(function () { return self.registration.unregister(); }).catch(function () {});
    }
    return response;
  }, function (error) {
    return caches.open(CACHE).then(function (cache) {
      if (!kioskPage) return cache.match(request);
      return (lang ? cache.match(SHELL + '?lang=' + encodeURIComponent(lang)) : Promise.resolve(null))
        .then(function (kept) { return kept || cache.match(SHELL); });
    }).then(function (kept) {
      if (kept) return kept;
      throw error;
    });
  }));
});
