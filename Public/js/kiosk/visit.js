// What every kiosk screen shares (loaded by kiosk/main.js): the page's state, the timers and listeners
// a step starts (undone when Submit's answer replaces the page in place), the camera, and the reset
// that leaves nothing of the visitor behind (KIO-04): the server's draft, this page, the browser's
// storage (all but the kiosk's outbox of finished reports, its service worker and its shell cache).
import * as kioskOutbox from './outbox.js';
import { openCamera, stopCamera } from '../core/camera.js';

// body, step (its data-kiosk-step), csrf, submitting (the form's Submit under way: the idle watch
// waits for it), stream (the camera's), restart (main.js's init, for a page replaced in place).
export const kiosk = { body: null, step: '', csrf: '', submitting: false, stream: null, restart: null };

export function outbox() { return kioskOutbox; }
export function nothing() {}

let cleanups = [];
export function onCleanUp(undo) { cleanups.push(undo); }
export function later(work, ms) {
  const id = window.setTimeout(work, ms);
  onCleanUp(function () { window.clearTimeout(id); });
}
export function listen(target, name, work, options) {
  target.addEventListener(name, work, options);
  onCleanUp(function () { target.removeEventListener(name, work, options); });
}
export function cleanUp() {
  const list = cleanups;
  cleanups = [];
  list.forEach(function (undo) { undo(); });
}

export function releaseCamera() {
  stopCamera(kiosk.stream);
  kiosk.stream = null;
}

// The back camera into the screen's video (kept for releaseCamera); a refusal is said.
export function startCamera(video, status, main) {
  openCamera(video, { facingMode: 'environment' }).then(function (media) { kiosk.stream = media; }, function (error) {
    if (error && error.message !== 'no camera') status.textContent = main.getAttribute('data-no-camera');
  });
}

// What the reset spares: the kiosk's outbox of finished reports (no screen reads it), the kiosk's
// service worker and its shell cache (the offline screens, nothing of a visitor).
export function spared(kind, name) {
  if (kind === 'db') return name === kioskOutbox.DB_NAME;
  if (kind === 'cache') return name.indexOf('har-kiosk-shell-') === 0;
  return /\/kiosk$/.test(name);
}

// Everything a page may have left in the browser: IndexedDB, Cache Storage, web storage, service workers.
export function wipeDevice() {
  const jobs = [];
  try { window.localStorage.clear(); } catch (e) { /* storage refused */ }
  try { window.sessionStorage.clear(); } catch (e) { /* storage refused */ }
  if (window.indexedDB && indexedDB.databases) {
    jobs.push(indexedDB.databases().then(function (list) {
      return Promise.all(list.filter(function (db) { return !spared('db', db.name); }).map(function (db) {
        return new Promise(function (resolve) {
          const request = indexedDB.deleteDatabase(db.name);
          request.onsuccess = request.onerror = request.onblocked = function () { resolve(); };
        });
      }));
    }).catch(nothing));
  }
  if (window.caches) {
    jobs.push(caches.keys().then(function (keys) {
      return Promise.all(keys.filter(function (key) { return !spared('cache', key); }).map(function (key) {
        return caches.delete(key);
      }));
    }).catch(nothing));
  }
  if (navigator.serviceWorker && navigator.serviceWorker.getRegistrations) {
    jobs.push(navigator.serviceWorker.getRegistrations().then(function (list) {
      return Promise.all(list.filter(function (registration) { return !spared('worker', registration.scope); })
        .map(function (registration) { return registration.unregister(); }));
    }).catch(nothing));
  }
  return Promise.all(jobs);
}

// The visitor walked away: the server forgets the report, the device forgets everything, and the
// attract screen replaces this page in the history.
export function reset() {
  releaseCamera();
  const main = document.getElementById('main');
  if (main) main.innerHTML = '';
  const told = fetch('/kiosk/reset', {
    method: 'POST', credentials: 'same-origin', keepalive: true,
    headers: { 'X-CSRF-Token': kiosk.csrf, 'Accept': 'application/json' }
  }).catch(nothing);
  const dropped = outbox() ? outbox().dropOpen().catch(nothing) : Promise.resolve();
  Promise.all([told, wipeDevice(), dropped]).then(function () { window.location.replace('/kiosk'); });
}

export function thumbnail(thumbs, label, source) {
  const item = document.createElement('li');
  const image = document.createElement('img');
  image.alt = label;
  image.src = source;
  item.appendChild(image);
  thumbs.appendChild(item);
}

// The form's answers, without the hidden fields and the token; complete when none is empty.
export function fieldsOf(form) {
  const fields = {};
  let complete = true;
  Array.prototype.forEach.call(form.elements, function (element) {
    if (!element.name || element.name.charAt(0) === '_' || element.name === 'submit_token') return;
    if (element.type === 'hidden' || element.tagName === 'BUTTON') return;
    fields[element.name] = element.value.trim();
    if (!fields[element.name]) complete = false;
  });
  return { fields: fields, complete: complete };
}
