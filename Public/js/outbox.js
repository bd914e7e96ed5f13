// The outbox on the device (issue 12, OFF-02..05): whole reports made with no connection, kept in
// IndexedDB (database 'har-outbox', store 'reports') until the server has acknowledged the report and
// every photo. A record: {id (a UUID made here, the report's id on the server too), owner (the user's
// id), status ('open' while being made, 'waiting' once submitted on the device), createdAt, token (the
// submit token, 64 hex digits), fields {name, designation, …}, photos [{id, blob, name, fix, takenAt}],
// lastError}. A classic script for pages and for the service worker (importScripts): self.HAROutbox.
//
// Sending (send(owner, csrf)) takes only that user's records, one at a time, in three steps the server
// answers the same however often they come (DeviceReportRoutes): open, each photo the server lacks,
// submit; the record goes only after the submit's answer.
(function (global) {
  'use strict';

  var DB_NAME = 'har-outbox';
  var STORE = 'reports';
  var opening = null;

  function database() {
    if (!opening) {
      opening = new Promise(function (resolve, reject) {
        if (!global.indexedDB) { reject(failure('write')); return; }
        var request = indexedDB.open(DB_NAME, 1);
        request.onupgradeneeded = function () {
          request.result.createObjectStore(STORE, { keyPath: 'id' }).createIndex('owner', 'owner');
        };
        request.onsuccess = function () {
          var db = request.result;
          db.onversionchange = function () { db.close(); opening = null; };
          resolve(db);
        };
        request.onerror = function () { opening = null; reject(failure('write', request.error)); };
      });
    }
    return opening;
  }

  // A storage error by what the user can do: 'quota' (no room left) or 'write' (refused otherwise).
  function failure(kind, cause) {
    var error = new Error(kind);
    error.kind = cause && cause.name === 'QuotaExceededError' ? 'quota' : kind;
    return error;
  }

  function transaction(mode, work) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx;
        try { tx = db.transaction(STORE, mode); } catch (e) { reject(failure('write', e)); return; }
        var result;
        try { result = work(tx.objectStore(STORE)); } catch (e) { tx.abort(); reject(failure('write', e)); return; }
        tx.oncomplete = function () { resolve(result && 'value' in result ? result.value : true); };
        tx.onerror = tx.onabort = function () { reject(failure('write', tx.error)); };
      });
    });
  }

  function list(owner) {
    return transaction('readonly', function (store) {
      var result = { value: [] };
      var request = store.index('owner').getAll(IDBKeyRange.only(String(owner)));
      request.onsuccess = function () {
        result.value = request.result.sort(function (a, b) { return b.createdAt - a.createdAt; });
      };
      return result;
    });
  }

  function get(id) {
    return transaction('readonly', function (store) {
      var result = { value: null };
      var request = store.get(id);
      request.onsuccess = function () { result.value = request.result || null; };
      return result;
    });
  }

  // Where the browser says how much room is left, a record that would not fit is refused before the
  // write (some browsers take a blob past the quota and evict the origin's data later): said as 'quota'.
  function room(record) {
    var storage = global.navigator && navigator.storage;
    if (!storage || !storage.estimate) return Promise.resolve();
    var bytes = (record.photos || []).reduce(function (sum, photo) { return sum + (photo.blob ? photo.blob.size : 0); }, 0);
    return storage.estimate().then(function (estimate) {
      if (estimate.quota && estimate.usage + bytes > estimate.quota) {
        var error = new Error('quota');
        error.kind = 'quota';
        throw error;
      }
    }, function () {});
  }

  function save(record) {
    record.updatedAt = Date.now();
    return room(record).then(function () {
      return transaction('readwrite', function (store) { store.put(record); });
    });
  }

  function remove(id) { return transaction('readwrite', function (store) { store.delete(id); }); }

  // The report being made on this device by this user, or a new one (kept once it has a photo).
  function openReport(owner) {
    return list(owner).then(function (records) {
      var open = records.filter(function (r) { return r.status === 'open'; })[0];
      return open || { id: HARIds.uuid(), owner: String(owner), status: 'open', createdAt: Date.now(), fields: {}, photos: [] };
    });
  }

  // ---- Sending ----

  function SignedOut() { this.signedOut = true; }
  function RetryLater(message) { this.retryLater = true; this.message = message; }

  function call(url, body, csrf) {
    return fetch(url, {
      method: 'POST', credentials: 'same-origin', body: body,
      headers: { 'Accept': 'application/json', 'X-CSRF-Token': csrf }
    }).then(function (response) {
      return response.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        if (response.status === 401) throw new SignedOut();
        // A 403 for the form token (a session renewed meanwhile): the next round asks for a fresh one.
        if (response.status >= 500 || response.status === 408 || response.status === 429 ||
            (response.status === 403 && json && json.error === 'csrf')) {
          throw new RetryLater(json && json.message);
        }
        return { status: response.status, body: json };
      });
    }, function () { throw new RetryLater(null); });
  }

  function sendPhoto(record, photo, csrf) {
    var form = new FormData();
    form.append('photo_id', photo.id);
    form.append('photo', photo.blob, photo.name || 'photo.jpg');
    var fix = photo.fix;
    if (fix && fix.latitude !== undefined && fix.latitude !== null) {
      form.append('latitude', String(fix.latitude));
      form.append('longitude', String(fix.longitude));
      if (fix.accuracy !== null && fix.accuracy !== undefined) form.append('accuracy', String(fix.accuracy));
      if (fix.altitude !== null && fix.altitude !== undefined) form.append('altitude', String(fix.altitude));
    }
    form.append('fix_time', String(Math.round(photo.takenAt || Date.now())));
    return call('/api/drafts/' + record.id + '/photos', form, csrf);
  }

  // One report: open, the photos the server lacks, submit. Resolves 'sent', or 'refused' with
  // record.lastError set (kept on the device for the user to see); rejects SignedOut or RetryLater.
  function sendOne(record, csrf) {
    return call('/api/device/reports/' + record.id, null, csrf).then(function (opened) {
      if (opened.status === 200 && opened.body && opened.body.state === 'submitted') return 'submitted';
      if (opened.status !== 200 || !opened.body) return refuse(record, opened);
      var have = opened.body.photos || [];
      var chain = Promise.resolve();
      record.photos.forEach(function (photo) {
        if (have.indexOf(photo.id) >= 0) return;
        chain = chain.then(function () {
          return sendPhoto(record, photo, csrf).then(function (answer) {
            if (answer.status !== 200 && answer.status !== 201) throw refusal(answer);
          });
        });
      });
      return chain.then(function () {
        var body = new URLSearchParams();
        body.append('submit_token', record.token);
        Object.keys(record.fields || {}).forEach(function (key) { body.append(key, record.fields[key]); });
        return call('/api/device/reports/' + record.id + '/submit', body, csrf);
      }).then(function (answer) {
        if (answer.status === 200) return 'submitted';
        return refuse(record, answer);
      }, function (error) {
        if (error && error.refused) return refuse(record, error.answer);
        throw error;
      });
    }).then(function (outcome) {
      if (outcome !== 'submitted') return outcome;
      return remove(record.id).then(function () { return 'sent'; });
    });
  }

  function refusal(answer) { return { refused: true, answer: answer }; }

  function refuse(record, answer) {
    record.lastError = (answer && answer.body && answer.body.message) || ('HTTP ' + (answer && answer.status));
    return save(record).then(function () { return 'refused'; }, function () { return 'refused'; });
  }

  // Sends every waiting report of this user, oldest first, one at a time (one tab or worker at a time
  // where the browser has Web Locks; the server keeps each once either way). Resolves {sent, waiting,
  // signedOut}.
  function send(owner, csrf) {
    function run() {
      return list(owner).then(function (records) {
        var waiting = records.filter(function (r) { return r.status === 'waiting' && !r.lastError; }).reverse();
        var result = { sent: 0, waiting: waiting.length, signedOut: false };
        var chain = Promise.resolve();
        waiting.forEach(function (record) {
          chain = chain.then(function () {
            if (result.stopped) return;
            return sendOne(record, csrf).then(function (outcome) {
              if (outcome === 'sent') { result.sent += 1; result.waiting -= 1; }
            }, function (error) {
              result.stopped = true;
              if (error && error.signedOut) result.signedOut = true;
            });
          });
        });
        return chain.then(function () { return result; });
      });
    }
    if (global.navigator && navigator.locks && navigator.locks.request) {
      return navigator.locks.request('har-outbox-send', run);
    }
    return run();
  }

  // A report the user deletes: removed once no send is under way (send's own lock, shared by the
  // pages and the service worker), so that a send in flight can neither submit it after its deletion
  // nor bring it back by saving a refusal. Where the browser has no Web Locks, at once.
  function discard(id) {
    if (global.navigator && navigator.locks && navigator.locks.request) {
      return navigator.locks.request('har-outbox-send', function () { return remove(id); });
    }
    return remove(id);
  }

  global.HAROutbox = {
    list: list, get: get, save: save, remove: remove, discard: discard, openReport: openReport, send: send,
    uuid: HARIds.uuid, token: HARIds.token
  };
})(self);
