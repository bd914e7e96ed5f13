// What the kiosk's screens other than the photo and form steps do: the receipt, the staff's count of
// refused reports on the attract screen, the server's Start and Start again by fetch, the language
// buttons, and what a revoked tablet drops.
import { kiosk, later, listen, nothing, outbox, reset } from './visit.js';

export function receipt() {
  const seconds = parseInt(kiosk.body.getAttribute('data-receipt-seconds'), 10) || 20;
  function back() { window.location.replace('/kiosk'); }
  later(back, seconds * 1000);
  // The QR code's link carries the claim secret: it leaves the screen well before the receipt does,
  // so the next visitor does not find it there.
  const qrSeconds = parseInt(kiosk.body.getAttribute('data-qr-seconds'), 10) || 8;
  later(function () {
    const qr = document.getElementById('kiosk-qr');
    if (qr) qr.remove();
    const gone = document.getElementById('kiosk-qr-gone');
    if (gone) gone.hidden = false;
  }, qrSeconds * 1000);
  listen(document, 'pointerdown', back);
  // The report reached the server: nothing of it stays on the tablet.
  if (outbox()) outbox().dropOpen().catch(nothing);
}

// The staff's count on the attract screen: held reports the server refused for good (numbers only),
// with "try again" for when the cause is mended (the kiosk's account linked again, say).
export function refusedNotice() {
  const notice = document.getElementById('kiosk-refused');
  if (!notice || !outbox()) return;
  const text = document.getElementById('kiosk-refused-count');
  outbox().counts().then(function (counts) {
    notice.hidden = counts.refused === 0;
    text.textContent = text.getAttribute('data-template').replace('{count}', String(counts.refused));
  }, nothing);
}

export function wireRefusedNotice() {
  const retryButton = document.getElementById('kiosk-refused-retry');
  if (!retryButton || !outbox()) return;
  retryButton.addEventListener('click', function () {
    outbox().retryRefused().then(function () { return outbox().send(); }).then(refusedNotice, refusedNotice);
  });
}

// The server's Start and Start again are forms: by fetch, so that with no answer the tablet goes on
// in the offline shell (a new visit, or the attract screen after the reset) instead of an error page.
export function serverForms() {
  const start = document.getElementById('kiosk-start');
  const startForm = start && start.form;
  if (startForm && window.fetch && window.URLSearchParams) {
    listen(startForm, 'submit', function (event) {
      event.preventDefault();
      fetch(startForm.action, {
        method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(startForm)),
        redirect: 'manual'
      }).then(function (response) {
        if (response.type === 'opaqueredirect') window.location.replace('/kiosk/photos');
        else HTMLFormElement.prototype.submit.call(startForm);
      }, function () { window.location.replace('/kiosk/offline?step=start'); });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('form.kiosk-cancel'), function (form) {
    listen(form, 'submit', function (event) {
      event.preventDefault();
      reset();
    });
  });
}

// The revoked tablet: its shell and service worker go (no more reports it could never send), the
// held reports stay in the outbox; the server's "not enrolled" page follows.
export function revoked() {
  const jobs = [];
  if (navigator.serviceWorker && navigator.serviceWorker.getRegistrations) {
    jobs.push(navigator.serviceWorker.getRegistrations().then(function (list) {
      return Promise.all(list.filter(function (registration) { return /\/kiosk$/.test(registration.scope); })
        .map(function (registration) { return registration.unregister(); }));
    }).catch(nothing));
  }
  if (window.caches) {
    jobs.push(caches.keys().then(function (keys) {
      return Promise.all(keys.filter(function (key) { return key.indexOf('har-kiosk-shell-') === 0; })
        .map(function (key) { return caches.delete(key); }));
    }).catch(nothing));
  }
  return Promise.all(jobs);
}

// The server's language switch (a form post; the answer's redirect is not followed).
export function switchLanguage(code, back) {
  const data = new URLSearchParams();
  data.append('_csrf', kiosk.csrf);
  data.append('lang', code);
  data.append('back', back);
  return fetch('/kiosk/lang', { method: 'POST', credentials: 'same-origin', body: data, redirect: 'manual' });
}

// The language buttons. On the server's screens: the server's switch, by fetch; no answer, the
// offline shell in that language at the same step (what the visitor typed kept with their photos).
// In the shell: the shell in that language (`?lang=`: the service worker keeps one per language).
export function languages(current, keepTyped) {
  const buttons = document.querySelectorAll('.kiosk-languages button[name="lang"]');
  Array.prototype.forEach.call(buttons, function (button) {
    listen(button, 'click', function (event) {
      if (!window.fetch || !window.URLSearchParams) return;
      event.preventDefault();
      const code = button.value;
      function offline() {
        const kept = keepTyped ? keepTyped().catch(nothing) : Promise.resolve();
        kept.then(function () {
          window.location.replace('/kiosk/offline?lang=' + encodeURIComponent(code) + '&step=' + current());
        });
      }
      if (kiosk.step === 'offline') { offline(); return; }
      switchLanguage(code, window.location.pathname)
        .then(function () { window.location.replace(window.location.pathname); }, offline);
    });
  });
}
