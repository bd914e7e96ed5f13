// SET-03: wireless only, and the browser says cellular: transfers wait; say so. Where the browser
// cannot tell (no navigator.connection, or no type), transfers go.
// A waiting photo is kept on the device (held-photos.js, IndexedDB) until the server has it: a reload,
// a tab the phone discarded, or a visit to the submission page does not lose it, and this page shows
// it again, waiting, when it opens on the same draft.
import { labels, page, settings, state, t } from './page.js';
import { updateFull } from './limit.js';
import * as strip from '../photo-strip.js';
import * as held from '../held-photos.js';

let waitingForWireless = [];
let networkNotice = null;
let send = null;   // uploads.js's queue(photo), given to startHolding

export function onCellularOnly() {
  const connection = navigator.connection;
  return !!(settings.wirelessOnly && connection && connection.type === 'cellular');
}

function checkNetwork() {
  const holding = onCellularOnly();
  if (networkNotice) networkNotice.hidden = !holding;
  if (!holding) {
    // Back on a wireless network (or the setting is off): the photos held meanwhile go, in order.
    const waiting = waitingForWireless;
    waitingForWireless = [];
    waiting.forEach(function (photo) { send(photo); });
  }
}

// Keeps a photo on the device, waiting: for a wireless network (SET-03), or for a server that did
// not take it now (uploads.js's notSent: its words are `message`). Resolves once it is written.
export function hold(photo, message) {
  waitingForWireless.push(photo);
  if (!photo.tile) photo.tile = strip.appendWaiting(photo, labels);
  photo.tile.querySelector('.photo-remove').disabled = false;
  let written = Promise.resolve();
  if (!photo.stored) {
    photo.stored = true;
    written = held.put({
      id: photo.id, draft: page.draft, owner: page.owner, order: photo.order, heldAt: photo.heldAt,
      blob: photo.blob, name: photo.name, fix: photo.fix
    }).then(function (kept) {
      // The device refused (storage full, a private window): it waits in this page only. Say so.
      if (kept) return;
      photo.stored = false;
      strip.say(t('create.heldNotKept'));
    });
  }
  strip.say(message || t('create.cellularWaiting'));
  return written;
}

// Photos held because the server did not take them: tried again after a while, as when the
// connection changes (and at the next visit of this page, whatever happens meanwhile).
let retryTimer = null;
export function retryLater(seconds) {
  if (retryTimer) return;
  retryTimer = setTimeout(function () { retryTimer = null; checkNetwork(); }, seconds * 1000);
}

// The photo is done with (the server has it, or refused it for good): its waiting tile and its copy
// on the device go.
export function settle(photo) {
  if (photo.tile) { strip.removeWaiting(photo.tile, labels); photo.tile = null; }
  if (photo.stored) { photo.stored = false; held.remove(photo.id); }
  updateFull();
}

// Held photos of this draft from an earlier visit, in capture order, before any taken meanwhile.
// One the server already has (its answer was lost with the page) is only forgotten. This user's
// photos held for other drafts (submitted, cancelled or expired while they waited) join this one.
function restore() {
  let adopted = 0;
  held.adopt(page.owner, page.draft, Date.now() - page.retentionSeconds * 1000).then(function (count) {
    adopted = count;
    return held.list(page.draft);
  }).then(function (records) {
    const before = document.querySelector('#photo-strip .photo-waiting');
    const restored = [];
    records.forEach(function (record) {
      if (document.querySelector('#photo-strip .photo-item[data-id="' + record.id + '"]')) { held.remove(record.id); return; }
      // Taken and held while the records were being read: already in the queue.
      if (waitingForWireless.some(function (photo) { return photo.id === record.id; })) return;
      const photo = {
        id: record.id, blob: record.blob, name: record.name, fix: record.fix, order: record.order,
        heldAt: record.heldAt, stored: true
      };
      photo.tile = strip.appendWaiting(photo, labels, before);
      restored.push(photo);
    });
    waitingForWireless = restored.concat(waitingForWireless);
    if (adopted) strip.say(strip.format(t(adopted === 1 ? 'create.heldAdoptedOne' : 'create.heldAdoptedMany'), { n: adopted }));
    else if (restored.length) strip.say(t('create.cellularWaiting'));
    state.restored = true;
    checkNetwork();
  });
}

// `queue(photo)` sends a photo (uploads.js); held photos go through it when the network allows.
export function startHolding(queue) {
  send = queue;
  networkNotice = document.getElementById('network-notice');
  if (navigator.connection && navigator.connection.addEventListener) navigator.connection.addEventListener('change', checkNetwork);
  state.heldForWireless = function () { return waitingForWireless.length; };
  restore();
  checkNetwork();

  // The X of a waiting photo: it leaves the queue and the device (one being sent settles by its answer).
  document.getElementById('photo-strip').addEventListener('click', function (event) {
    const button = event.target.closest('.photo-waiting .photo-remove');
    if (!button) return;
    const id = button.closest('.photo-waiting').getAttribute('data-held-id');
    const photo = waitingForWireless.filter(function (p) { return p.id === id; })[0];
    if (!photo) return;
    waitingForWireless.splice(waitingForWireless.indexOf(photo), 1);
    settle(photo);
    strip.say(labels.removed);
  });

  // Continue with photos still waiting: they are not in the report yet. Say so and let the user stay.
  document.getElementById('continue').addEventListener('click', function (event) {
    const waiting = strip.waitingCount();
    if (!waiting) return;
    const words = { one: t('create.heldOne'), many: t('create.heldMany'), question: t('create.heldLeave') };
    if (!window.confirm(strip.heldWarning(waiting, words))) event.preventDefault();
  });
}
