// Photos held on the device for a wireless network (SET-03): one IndexedDB record per photo,
// {id, draft, owner, order, heldAt, blob, name, fix}, in database 'har-held-photos', store 'photos',
// indexed by draft (the names the first version of this file used, so that photos already held on a
// device are still found). Used by the creation and submission pages (photo-strip.js, create/), and by
// sign-out (settings.js), which asks before leaving a user's unsent photos on a shared device.
//
// An ES module on the shared core (core/store.js), imported by photo-strip.js, create/ and settings.js.
import { openStore } from './core/store.js';

const store = openStore({ name: 'har-held-photos', store: 'photos', indexes: ['draft'] });

// Every call settles: where IndexedDB is missing or refuses (a private window), photos wait in the
// page only, as they did before it was used.
function settled(promise, fallback) {
  return promise.catch(function () { return fallback; });
}

export function put(record) { return settled(store.put(record), false); }

export function list(draft) {
  return settled(store.all(function (a, b) { return a.order - b.order; }, 'draft', draft), []);
}

export function remove(id) { return settled(store.remove(id), false); }

// Cancel: the draft is discarded, its held photos with it.
export function clear(draft) {
  return settled(store.walk('readwrite', function (record, cursor) { cursor.delete(); }, 'draft', draft), false);
}

// Photos of drafts other than the open one. This user's were never sent (their draft was submitted,
// cancelled or expired while they waited): they join the open draft rather than vanish; resolves how
// many did. Another user's of a shared device are theirs to send, unless held longer than the draft
// retention: those are dropped.
export function adopt(owner, draft, heldBefore) {
  let adopted = 0;
  return settled(store.walk('readwrite', function (record, cursor) {
    if (record.draft === draft) return;
    if (record.owner === owner) {
      record.draft = draft;
      cursor.update(record);
      adopted += 1;
    } else if (record.heldAt < heldBefore) {
      cursor.delete();
    }
  }).then(function () { return adopted; }), 0);
}

// Sign-out: how many of this user's photos wait here, and dropping them all.
export function countOwner(owner) {
  let count = 0;
  return settled(store.walk('readonly', function (record) {
    if (record.owner === owner) count += 1;
  }).then(function () { return count; }), 0);
}

export function clearOwner(owner) {
  return settled(store.walk('readwrite', function (record, cursor) {
    if (record.owner === owner) cursor.delete();
  }), false);
}
