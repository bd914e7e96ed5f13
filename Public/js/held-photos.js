// Photos held on the device for a wireless network (SET-03): one IndexedDB record per photo,
// {id, draft, owner, order, heldAt, blob, name, fix}. Used by the creation and submission pages
// (photo-strip.js, create/), and by sign-out (settings.js), which asks before leaving a user's
// unsent photos on a shared device.
(function () {
  'use strict';

  // Every call settles: where IndexedDB is missing or refuses (a private window), photos wait in the
  // page only, as they did before it was used.
  var DB_NAME = 'har-held-photos';
  var STORE = 'photos';
  var opening = null;

  function database() {
    if (!opening) opening = openDatabase(1);
    return opening;
  }

  // A database of that name without the store (made by other code) gets it in a new version.
  function openDatabase(version) {
    return new Promise(function (resolve, reject) {
      if (!window.indexedDB) { reject(new Error('no IndexedDB')); return; }
      var request = indexedDB.open(DB_NAME, version);
      request.onupgradeneeded = function () {
        if (!request.result.objectStoreNames.contains(STORE)) {
          request.result.createObjectStore(STORE, { keyPath: 'id' }).createIndex('draft', 'draft');
        }
      };
      request.onsuccess = function () {
        var db = request.result;
        // Another tab needs a newer version: let it have it; this page opens again when next used.
        db.onversionchange = function () { db.close(); opening = null; };
        if (db.objectStoreNames.contains(STORE)) { resolve(db); return; }
        var next = db.version + 1;
        db.close();
        resolve(openDatabase(next));
      };
      request.onerror = function () { reject(request.error); };
    });
  }

  // Runs `work(store)` in one transaction; resolves what it returned (`{value}` filled in by requests)
  // once the transaction has committed, or `fallback` when anything failed.
  function transaction(mode, work, fallback) {
    return database().then(function (db) {
      return new Promise(function (resolve) {
        var tx = db.transaction(STORE, mode);
        var result = work(tx.objectStore(STORE));
        tx.oncomplete = function () { resolve(result && 'value' in result ? result.value : true); };
        tx.onerror = tx.onabort = function () { resolve(fallback); };
      });
    }).catch(function () { return fallback; });
  }

  // Deletes every record `condition` picks, walking the records of `draft` (or all of them).
  function deleteWhere(draft, condition) {
    return transaction('readwrite', function (store) {
      var source = draft ? store.index('draft').openCursor(IDBKeyRange.only(draft)) : store.openCursor();
      source.onsuccess = function () {
        var cursor = source.result;
        if (!cursor) return;
        if (condition(cursor.value)) cursor.delete();
        cursor.continue();
      };
    }, false);
  }

  window.HARHeld = {
    put: function (record) {
      return transaction('readwrite', function (store) { store.put(record); }, false);
    },
    list: function (draft) {
      return transaction('readonly', function (store) {
        var result = { value: [] };
        var request = store.index('draft').getAll(IDBKeyRange.only(draft));
        request.onsuccess = function () {
          result.value = request.result.sort(function (a, b) { return a.order - b.order; });
        };
        return result;
      }, []);
    },
    remove: function (id) {
      return transaction('readwrite', function (store) { store.delete(id); }, false);
    },
    // Cancel: the draft is discarded, its held photos with it.
    clear: function (draft) { return deleteWhere(draft, function () { return true; }); },
    // Photos of drafts other than the open one. This user's were never sent (their draft was submitted,
    // cancelled or expired while they waited): they join the open draft rather than vanish; resolves
    // how many did. Another user's of a shared device are theirs to send, unless held longer than the
    // draft retention: those are dropped.
    adopt: function (owner, draft, heldBefore) {
      return transaction('readwrite', function (store) {
        var result = { value: 0 };
        var source = store.openCursor();
        source.onsuccess = function () {
          var cursor = source.result;
          if (!cursor) return;
          var record = cursor.value;
          if (record.draft !== draft) {
            if (record.owner === owner) {
              record.draft = draft;
              cursor.update(record);
              result.value += 1;
            } else if (record.heldAt < heldBefore) {
              cursor.delete();
            }
          }
          cursor.continue();
        };
        return result;
      }, 0);
    },
    // Sign-out: how many of this user's photos wait here, and dropping them all.
    countOwner: function (owner) {
      return transaction('readonly', function (store) {
        // A cursor, not getAll: one photo's blob in memory at a time.
        var result = { value: 0 };
        var source = store.openCursor();
        source.onsuccess = function () {
          var cursor = source.result;
          if (!cursor) return;
          if (cursor.value.owner === owner) result.value += 1;
          cursor.continue();
        };
        return result;
      }, 0);
    },
    clearOwner: function (owner) {
      return deleteWhere(null, function (record) { return record.owner === owner; });
    }
  };
})();
