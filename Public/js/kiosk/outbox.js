// The kiosk's outbox (the tablet off the network): reports kept on the tablet until the server has
// acknowledged the report and every photo, in IndexedDB ('har-kiosk-outbox', store 'reports'). A
// record is {id (a UUID, the report's id on the server too: the server's visit id for a visit begun
// on the server's screens), open (true while the visitor is still making it), token (the submit
// token, 64 hex digits), fields {name, designation, …}, photos [{id, blob, fix, takenAt}], createdAt,
// refused}. No screen of the kiosk reads a report back: the visitor sees a "will be sent" receipt, the
// next visitor nothing (the attract screen shows only how many the server refused, for the staff).
//
// What it gives the shared core (core/): the kiosk's URLs (/kiosk/device/reports, by the kiosk's
// credential instead of a user's session), any 403 as the credential refused (kept, tried again), a
// refusal kept as a mark only, and one run at a time in this page too. The kiosk's screens (visit.js)
// import it; nothing is left on `self`.
import { openStore } from '../core/store.js';
import { createSender, exclusively, RetryLater } from '../core/sender.js';
import { heldPhotoForm } from '../core/photo-form.js';

export const DB_NAME = 'har-kiosk-outbox';
const store = openStore({ name: DB_NAME, store: 'reports' });
let sending = null;

function all() { return store.all(function (a, b) { return a.createdAt - b.createdAt; }); }
export function save(record) { return store.put(record); }

// ---- The visit being made ----
// A visitor's photos are held here as they are taken (an open record, the visit's id), so that
// nothing is lost if the server goes away before Submit; the idle reset, Start again, the attract
// screen and a receipt drop it (dropOpen). Finished, it is a held report like the shell's.

function update(id, change) {
  return store.update(id, function () { return { id: id, open: true, photos: [], createdAt: Date.now() }; }, change);
}

export function hold(id, photo) {
  return update(id, function (record) {
    if (!record.open) return false;
    record.photos.push(photo);
  });
}

// The server answered this photo's upload: it is in the visit there (and stays held here until the
// receipt, in case the report is finished on the tablet after all).
export function markSent(id, photoID) {
  return update(id, function (record) {
    const photo = record.photos.filter(function (p) { return p.id === photoID; })[0];
    if (!photo) return false;
    photo.onServer = true;
  });
}

export function unhold(id, photoID) {
  return update(id, function (record) {
    record.photos = record.photos.filter(function (photo) { return photo.id !== photoID; });
  });
}

export function keepTyped(id, fields) {
  return update(id, function (record) {
    if (!record.open) return false;
    record.typed = fields;
  });
}

// The visit the tablet is in the middle of (the newest open record), or null.
export function openRecord() {
  return all().then(function (records) {
    const open = records.filter(function (r) { return r.open; });
    return open.length ? open[open.length - 1] : null;
  });
}

export function dropOpen() {
  return all().then(function (records) {
    return Promise.all(records.filter(function (r) { return r.open; }).map(function (r) { return store.remove(r.id); }));
  });
}

// The visit finished: its fields and submit token, and the photos it holds (or `photos`, the shell's
// own list). Rejects when there is no photo to send.
export function finish(id, submitToken, fields, photos) {
  return store.get(id).then(function (record) {
    record = record || { id: id, photos: [], createdAt: Date.now() };
    if (photos) record.photos = photos;
    if (!record.photos.length) throw new Error('no photos held');
    delete record.open;
    delete record.typed;
    record.token = submitToken;
    record.fields = fields;
    record.finishedAt = Date.now();
    return save(record).then(function () { return record; });
  });
}

// What the attract screen may say: how many finished reports wait, and how many the server refused
// for good (a number only: no screen reads a report back).
export function counts() {
  return all().then(function (records) {
    const done = records.filter(function (r) { return !r.open; });
    return {
      waiting: done.filter(function (r) { return !r.refused; }).length,
      refused: done.filter(function (r) { return r.refused; }).length
    };
  });
}

// Staff's "try again": the refused reports are sent again at the next send.
export function retryRefused() {
  return all().then(function (records) {
    return Promise.all(records.filter(function (r) { return r.refused; }).map(function (r) {
      delete r.refused;
      return save(r);
    }));
  });
}

const sender = createSender({
  reports: function (id) { return '/kiosk/device/reports/' + id; },
  photos: function (id) { return '/kiosk/device/reports/' + id + '/photos'; },
  refuse: function (record) { record.refused = true; return save(record).then(function () { return 'refused'; }); },
  remove: function (id) { return store.remove(id); },
  forbiddenIsRetry: true
});

// Sends every held report, oldest first, one at a time; one run at a time in this page (and across
// pages where the browser has Web Locks). Resolves {sent, waiting, revoked}.
export function send() {
  if (sending) return sending;
  function run() {
    return all().then(function (records) {
      const waiting = records.filter(function (r) { return !r.refused && !r.open; });
      const result = { sent: 0, waiting: waiting.length, revoked: false };
      if (!waiting.length) return result;
      return fetch('/kiosk/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
        .then(function (response) {
          // The kiosk revoked (or the tablet's credential gone): nothing is sent, everything is kept.
          if (response.status === 401 || response.status === 403) result.revoked = true;
          if (response.status !== 200) throw new RetryLater();
          return response.json();
        }).then(function (session) {
          return sender.sendAll(waiting, session.csrf);
        }).then(function (sent) {
          return { sent: sent.sent, waiting: sent.waiting, revoked: sent.signedOut };
        }, function () { return result; });
    });
  }
  sending = exclusively('har-kiosk-outbox-send', run).then(function (result) { sending = null; return result; },
    function () { sending = null; return { sent: 0, waiting: -1 }; });
  return sending;
}

// The photo screen's Submit sends again the held photos the server may lack, as the outbox would.
export const photoForm = heldPhotoForm;
