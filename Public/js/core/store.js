// One IndexedDB object store (keyPath 'id'), for what the device keeps: the volunteer's outbox, the
// kiosk's, and the photos held for a wireless network. `failure(kind, cause)` turns what IndexedDB
// throws into what the caller reports: the volunteer's pages say 'quota' or 'write' in the user's
// words; the kiosk's screens never read a report back and take the error as it is.

export function openStore({ name, store, indexes = [], failure = function (kind, cause) { return cause || new Error(kind); } }) {
  let opening = null;

  function complete(db) {
    if (!db.objectStoreNames.contains(store)) return false;
    const existing = db.transaction(store, 'readonly').objectStore(store).indexNames;
    return indexes.every(function (index) { return existing.contains(index); });
  }

  // Opened at whatever version the device has (a database made by an older page may be past 1); one
  // without the store or an index (made by other code) gets them in the next version.
  function open(version) {
    return new Promise(function (resolve, reject) {
      if (!self.indexedDB) { reject(failure('write')); return; }
      const request = version ? indexedDB.open(name, version) : indexedDB.open(name);
      request.onupgradeneeded = function () {
        const db = request.result;
        const objects = db.objectStoreNames.contains(store)
          ? request.transaction.objectStore(store) : db.createObjectStore(store, { keyPath: 'id' });
        indexes.forEach(function (index) {
          if (!objects.indexNames.contains(index)) objects.createIndex(index, index);
        });
      };
      request.onsuccess = function () {
        const db = request.result;
        // Another tab or the service worker needs a newer version: let it; opened again when next used.
        db.onversionchange = function () { db.close(); opening = null; };
        if (complete(db)) { resolve(db); return; }
        const next = db.version + 1;
        db.close();
        resolve(open(next));
      };
      request.onerror = function () { reject(failure('write', request.error)); };
    });
  }

  function database() {
    if (!opening) opening = open(null).catch(function (error) { opening = null; throw error; });
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

  // Visits the records (of `index` = `key` when given) one at a time, through a cursor, never all of
  // them in memory (each may hold a photo): `visit(record, cursor)` may update or delete through the
  // cursor in a 'readwrite' walk. Resolves once the transaction has committed.
  function walk(mode, visit, index, key) {
    return transaction(mode, function (objects) {
      const request = index ? objects.index(index).openCursor(IDBKeyRange.only(key)) : objects.openCursor();
      request.onsuccess = function () {
        const cursor = request.result;
        if (!cursor) return;
        visit(cursor.value, cursor);
        cursor.continue();
      };
    });
  }

  return { all: all, get: get, put: put, remove: remove, update: update, walk: walk };
}
