// The volunteer's outbox on the device (OFF-02..05): whole reports made with no connection, kept in
// IndexedDB (database 'har-outbox', store 'reports', indexed by owner) until the server has
// acknowledged the report and every photo. A record: {id (a UUID made here, the report's id on the
// server too), owner (the user's id), status ('open' while being made, 'waiting' once submitted on the
// device), createdAt, token (the submit token, 64 hex digits), fields {name, designation, …}, photos
// [{id, blob, name, fix, takenAt}], lastError}. An ES module for pages (device-sync.js, device-shell.js,
// submit.js, photo-strip.js, create/offline.js import it) and for the service worker (sw.js imports `send`).
//
// What it gives the shared core (core/): storage errors said as 'quota' or 'write' in the user's
// words, the volunteer's URLs (the report under /api/device/reports, its photos into the draft under
// /api/drafts), a refusal kept as the record's lastError, and only this user's records.
import { openStore } from './core/store.js';
import { createSender, exclusively } from './core/sender.js';
import { uuid, token } from './core/ids.js';

// A storage error by what the user can do: 'quota' (no room left) or 'write' (refused otherwise).
function failure(kind, cause) {
  const error = new Error(kind);
  error.kind = cause && cause.name === 'QuotaExceededError' ? 'quota' : kind;
  return error;
}

const store = openStore({ name: 'har-outbox', store: 'reports', indexes: ['owner'], failure: failure });
const LOCK = 'har-outbox-send';

export function list(owner) {
  return store.all(function (a, b) { return b.createdAt - a.createdAt; }, 'owner', String(owner));
}

export function get(id) { return store.get(id); }

// Where the browser says how much room is left, a record that would not fit is refused before the
// write (some browsers take a blob past the quota and evict the origin's data later): said as 'quota'.
function room(record) {
  const storage = self.navigator && navigator.storage;
  if (!storage || !storage.estimate) return Promise.resolve();
  const bytes = (record.photos || []).reduce(function (sum, photo) { return sum + (photo.blob ? photo.blob.size : 0); }, 0);
  return storage.estimate().then(function (estimate) {
    if (estimate.quota && estimate.usage + bytes > estimate.quota) throw failure('quota', { name: 'QuotaExceededError' });
  }, function () {});
}

export function save(record) {
  record.updatedAt = Date.now();
  return room(record).then(function () { return store.put(record); });
}

export function remove(id) { return store.remove(id); }

// The report being made on this device by this user, or a new one (kept once it has a photo).
export function openReport(owner) {
  return list(owner).then(function (records) {
    const open = records.filter(function (r) { return r.status === 'open'; })[0];
    return open || { id: uuid(), owner: String(owner), status: 'open', createdAt: Date.now(), fields: {}, photos: [] };
  });
}

// A refusal stays on the device with the server's words, for the user to see (and send again).
function refuse(record, answer) {
  record.lastError = (answer && answer.body && answer.body.message) || ('HTTP ' + (answer && answer.status));
  return save(record).then(function () { return 'refused'; }, function () { return 'refused'; });
}

const sender = createSender({
  reports: function (id) { return '/api/device/reports/' + id; },
  photos: function (id) { return '/api/drafts/' + id + '/photos'; },
  refuse: refuse, remove: remove
});

// Sends every waiting report of this user, oldest first (one tab or worker at a time where the
// browser has Web Locks; the server keeps each once either way). Resolves {sent, waiting, signedOut}.
export function send(owner, csrf) {
  return exclusively(LOCK, function () {
    return list(owner).then(function (records) {
      const waiting = records.filter(function (r) { return r.status === 'waiting' && !r.lastError; }).reverse();
      return sender.sendAll(waiting, csrf);
    });
  });
}

// A report the user deletes: removed once no send is under way (send's own lock, shared by the pages
// and the service worker), so that a send in flight can neither submit it after its deletion nor
// bring it back by saving a refusal.
export function discard(id) { return exclusively(LOCK, function () { return remove(id); }); }

// A record's ids are made with the shared core's.
export { uuid, token };
