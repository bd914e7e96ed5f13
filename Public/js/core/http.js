// The page's requests to its own server: the CSRF token the server put in <meta name="har-csrf">, and
// POST JSON with it.

export function csrf() {
  const meta = document.querySelector('meta[name="har-csrf"]');
  return meta ? meta.getAttribute('content') : '';
}

// POST JSON with the CSRF header; resolves {status, body} (body parsed when JSON). A 401 with
// "signed_out" follows the server's redirect (platform session over: LOG-01). Rejects on network
// failure or after timeoutMs, so no page waits forever on a slow platform.
export function postJSON(url, payload, timeoutMs) {
  const controller = typeof AbortController === 'function' ? new AbortController() : null;
  const timer = controller ? setTimeout(function () { controller.abort(); }, timeoutMs || 30000) : null;
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'Accept': 'application/json', 'X-CSRF-Token': csrf() },
    body: JSON.stringify(payload || {}),
    signal: controller ? controller.signal : undefined
  }).then(function (response) {
    if (timer) clearTimeout(timer);
    return response.text().then(function (text) {
      let body = null;
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
