// The network drops while the creation page, opened online, is in use (OFF-02/04): the
// report moves into the device's outbox (outbox.js) under the draft's own id, so that nothing is lost.
// A photo that cannot reach the server (the browser says it is offline, or its upload failed for want
// of a connection) is kept there with its fix and time instead, and shown in the row as waiting. The
// photos the server already has stay on the server: the device's record counts them (serverPhotos) and
// sends only its own, with their ids (the server keeps each once), when it is submitted.
// If the network returns while this page is open, the kept photos go through the page's usual upload
// queue and leave the device; Continue with the network still down opens the device's submission page
// (the service worker's shell), which finishes the same record; the outbox sends it when the server
// answers again.
import { labels, page, t } from './page.js';
import * as strip from '../photo-strip.js';
import * as outbox from '../outbox.js';
import { t as deviceWord } from '../device-user.js';

let kept = [];            // photos of this page kept on the device: {id, blob, name, fix, order, heldAt, tile}
let send = null;          // uploads.js's queue(photo)
let flushing = null;
let recordWrites = Promise.resolve();

// Whether a photo should go to the device rather than try the network.
export function offline() { return navigator.onLine === false; }

function outboxReady() { return !!page.owner; }

// The outbox's words (#outbox-words, a signed-in page's); `fallback` where the page has none.
function word(key, fallback) { const said = deviceWord(key); return said === key ? fallback : said; }

function fix(photo) {
  const f = photo.fix;
  if (!f) return null;
  return { latitude: f.latitude, longitude: f.longitude, accuracy: f.accuracy, altitude: f.altitude };
}

// One change of the record at a time (IndexedDB writes of photos can take a while).
function changeRecord(change) {
  // A write that failed (storage full) fails its own caller, not every later one of this page.
  recordWrites = recordWrites.catch(function () {}).then(function () {
    return outbox.get(page.draft).then(function (record) {
      record = record || {
        id: page.draft, owner: String(page.owner), status: 'open', createdAt: Date.now(), fields: {}, photos: [],
        fromPage: true
      };
      change(record);
      record.serverPhotos = strip.count();
      // Nothing of this page's left on the device (sent since): the record goes, unless the device's
      // submission page is to finish the report (Continue with the network down).
      if (!record.photos.length && record.status === 'open' && !record.continued) return outbox.remove(record.id);
      return outbox.save(record);
    });
  });
  return recordWrites;
}

function storageError(error) {
  const box = document.getElementById('outbox-error');
  const text = error && error.kind === 'quota' ? word('quota', '') : word('writeFailed', '');
  if (box && text) { box.textContent = text; box.hidden = false; } else strip.say(text || labels.failed);
}

// Keeps a photo that could not be sent on the device. Resolves once it is written (or refused: then
// the page says so, and the photo stays in the row, in this page only).
export function keepOnDevice(photo) {
  if (!outboxReady()) { strip.say(t('photos.errors.failed')); return Promise.resolve(); }
  if (kept.some(function (p) { return p.id === photo.id; })) return Promise.resolve();
  kept.push(photo);
  if (!photo.tile) photo.tile = strip.appendWaiting(photo, labels);
  photo.tile.setAttribute('data-device', 'true');
  const removeButton = photo.tile.querySelector('.photo-remove');
  if (removeButton) removeButton.disabled = false;
  strip.say(word('offlineNote', ''));
  return changeRecord(function (record) {
    if (record.photos.some(function (p) { return p.id === photo.id; })) return;
    record.photos.push({
      id: photo.id, blob: photo.blob, name: photo.name, fix: fix(photo),
      takenAt: photo.fix && photo.fix.time ? photo.fix.time : photo.heldAt, order: photo.order
    });
  }).catch(storageError);
}

function forget(photo) {
  kept = kept.filter(function (p) { return p !== photo; });
  if (photo.tile) { strip.removeWaiting(photo.tile, labels); photo.tile = null; }
  return changeRecord(function (record) {
    record.photos = record.photos.filter(function (p) { return p.id !== photo.id; });
  }).catch(function () {});
}

// The network is back and this page is still open: the kept photos go the usual way, in order; each
// leaves the device once the server has it (a failure keeps it there again).
export function flush() {
  if (offline() || !kept.length) return flushing || Promise.resolve();
  const photos = kept;
  kept = [];
  flushing = Promise.all(photos.map(function (photo) {
    if (photo.tile) { strip.removeWaiting(photo.tile, labels); photo.tile = null; }
    return send(photo).then(function () {
      const onServer = document.querySelector('#photo-strip .photo-item[data-id="' + photo.id + '"]');
      if (onServer) return changeRecord(function (record) {
        record.photos = record.photos.filter(function (p) { return p.id !== photo.id; });
        record.continued = false;   // the server's submission page finishes it now
      }).catch(function () {});
    });
  })).then(function () { flushing = null; });
  return flushing;
}

// This user's unfinished reports kept on the device for another id: a draft gone meanwhile
// (submitted or cancelled elsewhere, expired) whose photos the server never had, or a report begun
// in the app shell offline and not submitted there. Their photos join this draft's record, as held
// photos join the open draft (holding.js), rather than wait on the device where no page shows them.
// One with answers typed in the shell's form stays as it is, for the shell to finish: taking only its
// photos would lose what was typed. Resolves to how many joined.
function adoptOthers() {
  const owner = String(page.owner);
  return outbox.list(owner).then(function (records) {
    const typed = function (r) {
      return Object.keys(r.fields || {}).some(function (key) { return String(r.fields[key] || '').trim() !== ''; });
    };
    const others = records.filter(function (r) {
      return r.status === 'open' && String(r.owner) === owner && r.id !== page.draft && r.photos.length && !typed(r);
    });
    if (!others.length) return 0;
    let joined = 0;
    return changeRecord(function (record) {
      others.forEach(function (other) {
        other.photos.forEach(function (p) {
          if (record.photos.some(function (q) { return q.id === p.id; })) return;
          record.photos.push(p);
          joined += 1;
        });
      });
    }).then(function () {
      return Promise.all(others.map(function (other) { return outbox.remove(other.id); }));
    }).then(function () { return joined; });
  });
}

// Photos of this draft kept on the device by an earlier visit of this page (a reload while offline),
// with those adopted from the user's other unfinished reports on the device.
function restore() {
  let joined = 0;
  return adoptOthers().catch(function () { return 0; }).then(function (count) {
    joined = count;
    return outbox.get(page.draft);
  }).then(function (record) {
    if (!record || record.status !== 'open' || String(record.owner) !== String(page.owner)) return;
    record.photos.forEach(function (p) {
      if (document.querySelector('#photo-strip .photo-item[data-id="' + p.id + '"]')) return;
      const photo = { id: p.id, blob: p.blob, name: p.name, fix: p.fix ? Object.assign({ time: p.takenAt }, p.fix) : null,
        order: p.order || p.takenAt, heldAt: p.takenAt };
      photo.tile = strip.appendWaiting(photo, labels);
      photo.tile.setAttribute('data-device', 'true');
      kept.push(photo);
    });
    if (joined) strip.say(strip.format(t(joined === 1 ? 'create.heldAdoptedOne' : 'create.heldAdoptedMany'), { n: joined }));
    else if (kept.length) strip.say(word('offlineNote', ''));
    if (kept.length) flush();
  }, function () {});
}

export function deviceCount() { return kept.length; }

export function startOffline(queue) {
  send = queue;
  if (!outboxReady()) return;
  restore();
  window.addEventListener('online', flush);
  window.addEventListener('offline', function () { strip.say(word('offlineNote', '')); });

  // The X of a photo kept on the device: it leaves the row and the device.
  document.getElementById('photo-strip').addEventListener('click', function (event) {
    const item = event.target.closest('.photo-waiting[data-device] .photo-remove');
    if (!item) return;
    const id = item.closest('.photo-waiting').getAttribute('data-held-id');
    const photo = kept.filter(function (p) { return p.id === id; })[0];
    if (photo) forget(photo).then(function () { strip.say(labels.removed); });
  });

  // Continue: with the network down, the device's submission page (the service worker's shell) takes
  // the record on (made now if every photo had reached the server); with it back, the kept photos
  // reach the server first. The browser may believe it is online while the server cannot be reached
  // (server down, captive Wi-Fi): with photos on the server, the record is marked for the device's
  // page all the same before leaving, so that the shell, if it is what answers, finishes this report;
  // the server's submission page, if it answers, removes that mark (submit.js).
  document.getElementById('continue').addEventListener('click', function (event) {
    const down = offline();
    const mark = down || (!kept.length && !flushing);
    if (mark && !down && (!strip.count() || strip.waitingCount())) return;   // as before (holding.js)
    event.preventDefault();
    event.stopImmediatePropagation();
    const href = event.currentTarget.href;
    const before = mark ? changeRecord(function (record) { record.continued = true; }) : recordWrites.then(flush);
    before.catch(function () {}).then(function () { window.location.assign(href); });
  }, true);
}
