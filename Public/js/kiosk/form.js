// The server's form screen: Submit goes by fetch. No answer (or the server failing): the report is
// kept on the tablet under the visit's id with this form's token, so that the outbox's later send is
// the same submission (a POST that arrived but whose answer was lost is not doubled). The server's
// answer (the receipt, or the form with its messages) replaces the page in place: it is the answer
// to a POST, so the page is not loaded again (the receipt's secret is shown once).
import { cleanUp, fieldsOf, kiosk, later, listen, outbox, releaseCamera } from './visit.js';

// How long Submit waits for the server before the report is kept on the tablet.
const SEND_TIMEOUT = 30000;

// The "will be sent" screen in place of the page's content (the offline receipt): no code, and
// nothing of the report; back to the attract screen after the receipt's time or a tap.
function showHeld() {
  cleanUp();
  const main = document.getElementById('main');
  const template = document.getElementById('kiosk-held-template');
  main.innerHTML = '';
  main.classList.add('kiosk-receipt');
  main.appendChild(template.content.cloneNode(true));
  const title = main.querySelector('h1');
  title.setAttribute('tabindex', '-1');
  title.focus();
  const seconds = parseInt(kiosk.body.getAttribute('data-receipt-seconds'), 10) || 20;
  function back() { window.location.replace('/kiosk'); }
  later(back, seconds * 1000);
  document.getElementById('kiosk-done').addEventListener('click', back);
}

function replacePage(html) {
  const page = new DOMParser().parseFromString(html, 'text/html');
  if (!page.body || !page.body.hasAttribute('data-kiosk-step')) { window.location.replace('/kiosk'); return; }
  cleanUp();
  releaseCamera();
  document.title = page.title;
  document.documentElement.lang = page.documentElement.lang || document.documentElement.lang;
  const meta = document.querySelector('meta[name="har-csrf"]');
  const fresh = page.querySelector('meta[name="har-csrf"]');
  if (meta && fresh) meta.setAttribute('content', fresh.getAttribute('content'));
  document.body.replaceWith(document.importNode(page.body, true));
  kiosk.restart();
}

export function formStep() {
  const form = document.getElementById('kiosk-form');
  const main = document.getElementById('main');
  const button = document.getElementById('kiosk-submit');
  const error = document.getElementById('kiosk-form-problem');
  const visit = main.getAttribute('data-visit');
  let sending = false;
  function say(text) {
    error.textContent = text;
    error.hidden = !text;
  }
  function failed(words) {
    sending = false;
    kiosk.submitting = false;
    button.removeAttribute('aria-busy');
    say(main.getAttribute(words));
  }
  function keep() {
    const answers = fieldsOf(form);
    if (!answers.complete || !outbox()) { failed(outbox() ? 'data-incomplete' : 'data-failed'); return; }
    outbox().finish(visit, form.elements.submit_token.value, answers.fields).then(function () {
      showHeld();
      outbox().send();
    }, function () { failed('data-failed'); });
  }
  // Photos held on the tablet whose upload got no answer on the photo screen (the server may never
  // have had them) are sent again first, by their ids (the server keeps each once): the receipt
  // drops what the tablet holds, so a report submitted without them would lose them. Resolves
  // false when one still cannot go (no answer within SEND_TIMEOUT for them all, the server failing
  // or busy, the visit gone there): the report is then kept on the tablet with all of them (keep),
  // and the device routes make the visit again if need be. One the server refuses for what it is
  // (too large, not an image, the report full) leaves, as on the photo screen.
  function sendHeldPhotos() {
    if (!outbox() || !visit) return Promise.resolve(true);
    function yes() { return true; }
    const abort = new AbortController();
    const timer = window.setTimeout(function () { abort.abort(); }, SEND_TIMEOUT);
    return outbox().openRecord().then(function (record) {
      const missing = record && record.id === visit
        ? record.photos.filter(function (photo) { return !photo.onServer; }) : [];
      let chain = Promise.resolve(true);
      missing.forEach(function (photo) {
        chain = chain.then(function (ok) {
          if (!ok) return false;
          return fetch('/kiosk/photos', {
            method: 'POST', body: outbox().photoForm(photo), credentials: 'same-origin', signal: abort.signal,
            headers: { 'X-CSRF-Token': kiosk.csrf, 'Accept': 'application/json' }
          }).then(function (response) {
            if (response.ok) return outbox().markSent(visit, photo.id).then(yes, yes);
            if ([409, 413, 415].indexOf(response.status) >= 0) return outbox().unhold(visit, photo.id).then(yes, yes);
            return false;
          }, function () { return false; });
        });
      });
      return chain;
    }, yes).then(function (allSent) {
      window.clearTimeout(timer);
      return allSent;
    });
  }
  listen(form, 'submit', function (event) {
    if (!window.fetch || !window.URLSearchParams || !window.AbortController || !window.DOMParser) return;
    event.preventDefault();
    if (sending) return;
    sending = true;
    kiosk.submitting = true;
    say('');
    button.setAttribute('aria-busy', 'true');
    sendHeldPhotos().then(function (allSent) {
      if (allSent) submitOnline(); else keep();
    });
  });
  function submitOnline() {
    const abort = new AbortController();
    const timer = window.setTimeout(function () { abort.abort(); }, SEND_TIMEOUT);
    fetch(form.action, {
      method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(form)),
      headers: { 'Accept': 'text/html' }, signal: abort.signal
    }).then(function (response) {
      if (response.status >= 500) throw new Error(String(response.status));
      if (response.redirected) return { url: response.url };
      return response.text().then(function (html) { return { html: html, status: response.status }; });
    }).then(function (answer) {
      window.clearTimeout(timer);
      if (answer.url) { window.location.replace(answer.url); return; }
      replacePage(answer.html);
    }, function () {
      window.clearTimeout(timer);
      keep();
    });
  }
}
