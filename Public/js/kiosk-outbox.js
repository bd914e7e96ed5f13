// The kiosk's outbox (issue 11, the tablet off the network): reports kept on the tablet until the
// server has acknowledged the report and every photo, in IndexedDB ('har-kiosk-outbox', store
// 'reports'). The volunteer's device outbox (outbox.js) made for a kiosk: a record is {id (a UUID, the
// report's id on the server too: the server's visit id for a visit begun on the server's screens),
// open (true while the visitor is still making it), token (the submit token, 64 hex digits), fields
// {name, designation, …}, photos [{id, blob, fix, takenAt}], createdAt, refused}. No screen of the kiosk
// reads a report back: the visitor sees a "will be sent" receipt, the next visitor nothing (the attract
// screen shows only how many the server refused, for the staff). Sending goes by the kiosk's
// credential to /kiosk/device/reports/{id} (open, photos, submit), each step answered the same however
// often it comes; a record goes only after the submit's answer. Ids come from ids.js (loaded first).
// self.HARKioskOutbox.
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

  // ---- The visit being made ----
  // A visitor's photos are held here as they are taken (an open record, the visit's id), so that
  // nothing is lost if the server goes away before Submit; the idle reset, Start again, the attract
  // screen and a receipt drop it (dropOpen). Finished, it is a held report like the shell's.

  function get(id) {
    return transaction('readonly', function (store) {
      var result = { value: null };
      var request = store.get(id);
      request.onsuccess = function () { result.value = request.result || null; };
      return result;
    });
  }

  function update(id, change) {
    return transaction('readwrite', function (store) {
      var request = store.get(id);
      request.onsuccess = function () {
        var record = request.result || { id: id, open: true, photos: [], createdAt: Date.now() };
        if (change(record) !== false) store.put(record);
      };
    });
  }

  function hold(id, photo) {
    return update(id, function (record) {
      if (!record.open) return false;
      record.photos.push(photo);
    });
  }

  // The server answered this photo's upload: it is in the visit there (and stays held here until
  // the receipt, in case the report is finished on the tablet after all).
  function markSent(id, photoID) {
    return update(id, function (record) {
      var photo = record.photos.filter(function (p) { return p.id === photoID; })[0];
      if (!photo) return false;
      photo.onServer = true;
    });
  }

  function unhold(id, photoID) {
    return update(id, function (record) {
      record.photos = record.photos.filter(function (photo) { return photo.id !== photoID; });
    });
  }

  function keepTyped(id, fields) {
    return update(id, function (record) {
      if (!record.open) return false;
      record.typed = fields;
    });
  }

  // The visit the tablet is in the middle of (the newest open record), or null.
  function openRecord() {
    return all().then(function (records) {
      var open = records.filter(function (r) { return r.open; });
      return open.length ? open[open.length - 1] : null;
    });
  }

  function dropOpen() {
    return all().then(function (records) {
      return Promise.all(records.filter(function (r) { return r.open; }).map(function (r) { return remove(r.id); }));
    });
  }

  // The visit finished: its fields and submit token, and the photos it holds (or `photos`, the shell's
  // own list). Rejects when there is no photo to send.
  function finish(id, submitToken, fields, photos) {
    return get(id).then(function (record) {
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
  function counts() {
    return all().then(function (records) {
      var done = records.filter(function (r) { return !r.open; });
      return {
        waiting: done.filter(function (r) { return !r.refused; }).length,
        refused: done.filter(function (r) { return r.refused; }).length
      };
    });
  }

  // Staff's "try again": the refused reports are sent again at the next send.
  function retryRefused() {
    return all().then(function (records) {
      return Promise.all(records.filter(function (r) { return r.refused; }).map(function (r) {
        delete r.refused;
        return save(r);
      }));
    });
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

  // A held photo as its upload's form: its id (the server keeps each once), its fix and time.
  function photoForm(photo) {
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
    return form;
  }

  function sendPhoto(record, photo, csrf) {
    return call('/kiosk/device/reports/' + record.id + '/photos', photoForm(photo), csrf);
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
        var waiting = records.filter(function (r) { return !r.refused && !r.open; });
        var result = { sent: 0, waiting: waiting.length, revoked: false };
        if (!waiting.length) return result;
        return fetch('/kiosk/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
          .then(function (response) {
            // The kiosk revoked (or the tablet's credential gone): nothing is sent, everything is kept.
            if (response.status === 401 || response.status === 403) result.revoked = true;
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

  global.HARKioskOutbox = {
    save: save, send: send, hold: hold, unhold: unhold, markSent: markSent, photoForm: photoForm, keepTyped: keepTyped,
    openRecord: openRecord,
    dropOpen: dropOpen, finish: finish, counts: counts, retryRefused: retryRefused, DB_NAME: DB_NAME
  };
})(self);
