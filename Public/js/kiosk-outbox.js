// The kiosk's outbox (issue 11, the tablet off the network): finished reports the offline shell could
// not send, kept in IndexedDB ('har-kiosk-outbox', store 'reports') until the server has acknowledged
// the report and every photo. The volunteer's device outbox (outbox.js) made for a kiosk: a record is
// {id (a UUID made here, the report's id on the server too), token (the submit token, 64 hex digits),
// fields {name, designation, …}, photos [{id, blob, fix, takenAt}], createdAt}. No screen of the kiosk
// reads it back: the visitor sees a "will be sent" receipt, the next visitor nothing. Sending goes by
// the kiosk's credential to /kiosk/device/reports/{id} (open, photos, submit), each step answered the
// same however often it comes; a record goes only after the submit's answer. self.HARKioskOutbox.
(function (global) {
  'use strict';

  var DB_NAME = 'har-kiosk-outbox';
  var STORE = 'reports';
  var opening = null;
  var sending = null;

  function database() {
    if (!opening) {
      opening = new Promise(function (resolve, reject) {
        if (!global.indexedDB) { reject(new Error('no IndexedDB')); return; }
        var request = indexedDB.open(DB_NAME, 1);
        request.onupgradeneeded = function () { request.result.createObjectStore(STORE, { keyPath: 'id' }); };
        request.onsuccess = function () {
          var db = request.result;
          db.onversionchange = function () { db.close(); opening = null; };
          resolve(db);
        };
        request.onerror = function () { opening = null; reject(request.error); };
      });
    }
    return opening;
  }

  function transaction(mode, work) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode);
        var result = work(tx.objectStore(STORE));
        tx.oncomplete = function () { resolve(result && 'value' in result ? result.value : true); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }

  function all() {
    return transaction('readonly', function (store) {
      var result = { value: [] };
      var request = store.getAll();
      request.onsuccess = function () {
        result.value = request.result.sort(function (a, b) { return a.createdAt - b.createdAt; });
      };
      return result;
    });
  }

  function save(record) { return transaction('readwrite', function (store) { store.put(record); }); }
  function remove(id) { return transaction('readwrite', function (store) { store.delete(id); }); }

  function uuid() {
    if (global.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join('');
    return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
  }

  function token() {
    return Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(32)), function (b) {
      return (b + 0x100).toString(16).slice(1);
    }).join('');
  }

  // ---- Sending ----

  function RetryLater() { this.retryLater = true; }

  function call(url, body, csrf) {
    return fetch(url, {
      method: 'POST', credentials: 'same-origin', body: body,
      headers: { 'Accept': 'application/json', 'X-CSRF-Token': csrf }
    }).then(function (response) {
      // Not enrolled any more, or the server busy or away: the record stays for a later try.
      if (response.status >= 500 || response.status === 401 || response.status === 403 ||
          response.status === 408 || response.status === 429) throw new RetryLater();
      return response.json().then(function (json) { return { status: response.status, body: json }; },
        function () { return { status: response.status, body: null }; });
    }, function () { throw new RetryLater(); });
  }

  function sendPhoto(record, photo, csrf) {
    var form = new FormData();
    form.append('photo_id', photo.id);
    var fix = photo.fix;
    if (fix && fix.latitude !== undefined && fix.latitude !== null) {
      form.append('latitude', String(fix.latitude));
      form.append('longitude', String(fix.longitude));
      if (fix.accuracy !== null && fix.accuracy !== undefined) form.append('accuracy', String(fix.accuracy));
    }
    form.append('fix_time', String(Math.round(photo.takenAt || Date.now())));
    form.append('photo', photo.blob, 'photo.jpg');
    return call('/kiosk/device/reports/' + record.id + '/photos', form, csrf);
  }

  // One report: open, the photos the server lacks, submit; then the record goes. A refusal (4xx: the
  // server will never take it as it is) keeps the record with its error, for the staff's tools.
  function sendOne(record, csrf) {
    return call('/kiosk/device/reports/' + record.id, null, csrf).then(function (opened) {
      if (opened.status === 200 && opened.body && opened.body.state === 'submitted') return 'submitted';
      if (opened.status !== 200 || !opened.body) return 'refused';
      var have = opened.body.photos || [];
      var chain = Promise.resolve('ok');
      record.photos.forEach(function (photo) {
        if (have.indexOf(photo.id) >= 0) return;
        chain = chain.then(function (so) {
          if (so !== 'ok') return so;
          return sendPhoto(record, photo, csrf).then(function (answer) {
            return answer.status === 200 || answer.status === 201 ? 'ok' : 'refused';
          });
        });
      });
      return chain.then(function (so) {
        if (so !== 'ok') return so;
        var body = new URLSearchParams();
        body.append('submit_token', record.token);
        Object.keys(record.fields || {}).forEach(function (key) { body.append(key, record.fields[key]); });
        return call('/kiosk/device/reports/' + record.id + '/submit', body, csrf).then(function (answer) {
          return answer.status === 200 ? 'submitted' : 'refused';
        });
      });
    }).then(function (outcome) {
      if (outcome === 'submitted') return remove(record.id).then(function () { return 'sent'; });
      record.refused = true;
      return save(record).then(function () { return 'refused'; });
    });
  }

  // Sends every held report, oldest first, one at a time; one run at a time in this page (and across
  // pages where the browser has Web Locks). Resolves {sent, waiting}.
  function send() {
    if (sending) return sending;
    function run() {
      return all().then(function (records) {
        var waiting = records.filter(function (r) { return !r.refused; });
        var result = { sent: 0, waiting: waiting.length };
        if (!waiting.length) return result;
        return fetch('/kiosk/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
          .then(function (response) {
            if (response.status !== 200) throw new RetryLater();
            return response.json();
          }).then(function (session) {
            var chain = Promise.resolve();
            waiting.forEach(function (record) {
              chain = chain.then(function () {
                return sendOne(record, session.csrf).then(function (outcome) {
                  if (outcome === 'sent') { result.sent += 1; result.waiting -= 1; }
                });
              });
            });
            return chain;
          }).then(function () { return result; }, function () { return result; });
      });
    }
    var locked = global.navigator && navigator.locks && navigator.locks.request
      ? navigator.locks.request('har-kiosk-outbox-send', run) : run();
    sending = locked.then(function (result) { sending = null; return result; },
      function () { sending = null; return { sent: 0, waiting: -1 }; });
    return sending;
  }

  global.HARKioskOutbox = { save: save, send: send, uuid: uuid, token: token, DB_NAME: DB_NAME };
})(self);
