// The asset strategy both service workers share (sw.js for the volunteer's app shell, kiosk/sw.js for
// the kiosk's offline shell): one cache per version of the site, named `prefix` + the version the
// server puts in the worker's first line (self.HAR_SHELL_VERSION, a hash of Public/), holding every
// static file the server lists there (self.HAR_ASSETS: the files under Public/, as the server serves
// them at /static/), kept under its plain path. Requests go to the network first; a static file the
// network cannot give comes from the cache. A new version's activation removes the older caches.
// The worker's own pages (shells) are its business: `keep` and `put` them into the same cache.

export function cacheName(prefix) { return prefix + (self.HAR_SHELL_VERSION || 'dev'); }

// Only answers that are the real thing are kept: a page answered with the sign-in page (the session
// ended) would otherwise stand in for the shell.
export function fetchKept(url) {
  return fetch(url, { credentials: 'same-origin', cache: 'no-cache' }).then(function (response) {
    if (!response.ok || response.redirected) throw new Error('not kept: ' + url);
    return response;
  });
}

// Every listed static file into `cache`; rejects (the install fails, the running version stays) when
// one cannot be had.
export function keepAssets(cache) {
  return Promise.all((self.HAR_ASSETS || []).map(function (url) {
    return fetchKept(url).then(function (response) { return cache.put(url, response); });
  }));
}

export function dropOlder(prefix) {
  const current = cacheName(prefix);
  return caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) { return name.indexOf(prefix) === 0 && name !== current; })
      .map(function (name) { return caches.delete(name); }));
  });
}

// The plain path a static file is kept under, or null for anything else.
export function assetKey(url) { return url.pathname.indexOf('/static/') === 0 ? url.pathname : null; }

// The network's answer (seen by `seen` first, where given); with no network, what `kept(cache)` finds
// in this version's cache, else the network's error.
export function networkFirst(request, prefix, kept, seen) {
  return fetch(request).then(function (response) {
    if (seen) seen(response);
    return response;
  }, function (error) {
    return caches.open(cacheName(prefix)).then(kept).then(function (found) {
      if (found) return found;
      throw error;
    });
  });
}
