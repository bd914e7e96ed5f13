// One IndexedDB object store (keyPath 'id'), for the device's outboxes: the volunteer's and the
// kiosk's. `failure(kind, cause)` turns what IndexedDB throws into what the caller reports: the
// volunteer's pages say 'quota' or 'write' in the user's words; the kiosk's screens never read a
// report back and take the error as it is.

export function openStore({ name, store, indexes = [], failure = function (kind, cause) { return cause || new Error(kind); } }) {
  let opening = null;

  function database() {
    if (!opening) {
      opening = new Promise(function (resolve, reject) {
        if (!self.indexedDB) { reject(failure('write')); return; }
        const request = indexedDB.open(name, 1);
        request.onupgradeneeded = function () {
          const created = request.result.createObjectStore(store, { keyPath: 'id' });
          indexes.forEach(function (index) { created.createIndex(index, index); });
        };
        request.onsuccess = function () {
          const db = request.result;
          // Another tab or the service worker needs a newer version: let it; opened again when next used.
          db.onversionchange = function () { db.close(); opening = null; };
          resolve(db);
        };
        request.onerror = function () { opening = null; reject(failure('write', request.error)); };
      });
    }
    return opening;
  }

  // Runs `work(objectStore)` in one transaction; resolves what it returned (`{value}` filled in by its
  // requests) once the transaction has committed.
  function transaction(mode, work) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        let tx;
        try { tx = db.transaction(store, mode); } catch (e) { reject(failure('write', e)); return; }
        let result;
        try { result = work(tx.objectStore(store)); } catch (e) { tx.abort(); reject(failure('write', e)); return; }
        tx.oncomplete = function () { resolve(result && 'value' in result ? result.value : true); };
        tx.onerror = tx.onabort = function () { reject(failure('write', tx.error)); };
      });
    });
  }

  // Every record (of `index` = `key` when given), sorted by `order`.
  function all(order, index, key) {
    return transaction('readonly', function (objects) {
      const result = { value: [] };
      const request = index ? objects.index(index).getAll(IDBKeyRange.only(key)) : objects.getAll();
      request.onsuccess = function () { result.value = request.result.sort(order); };
      return result;
    });
  }

  function get(id) {
    return transaction('readonly', function (objects) {
      const result = { value: null };
      const request = objects.get(id);
      request.onsuccess = function () { result.value = request.result || null; };
      return result;
    });
  }

  function put(record) { return transaction('readwrite', function (objects) { objects.put(record); }); }
  function remove(id) { return transaction('readwrite', function (objects) { objects.delete(id); }); }

  // Reads, changes and writes one record in one transaction: `change(record)` returning false writes
  // nothing; `fresh()` is the record when there is none yet.
  function update(id, fresh, change) {
    return transaction('readwrite', function (objects) {
      const request = objects.get(id);
      request.onsuccess = function () {
        const record = request.result || fresh();
        if (change(record) !== false) objects.put(record);
      };
    });
  }

  return { all: all, get: get, put: put, remove: remove, update: update };
}
