// The photo row of the creation and submission pages (CRE-08/09/10, SUB-04): each X is a small form
// that works without JavaScript; here it becomes a fetch DELETE, and the row updates in place.
// Photos held for a wireless network (SET-03) are kept on the device (IndexedDB) and shown at the end
// of the row as waiting; Cancel drops them, and Submit warns while the draft has some.
// Exposes window.HARPhotos: items(), count(), append(photo, labels), remove(id), onRemoved(callback),
// appendWaiting(photo, labels, before), removeWaiting(item, labels), waitingCount(), heldWarning(n, words),
// held (the device's store).
(function () {
  'use strict';
  var listeners = [];

  function strip() { return document.getElementById('photo-strip'); }

  function items() {
    var row = strip();
    return row ? Array.prototype.slice.call(row.querySelectorAll('.photo-item[data-id]')) : [];
  }

  function say(text) {
    var node = document.getElementById('photo-message');
    if (node) node.textContent = text || '';
  }

  function format(text, values) {
    return String(text || '').replace(/\{(\w+)\}/g, function (all, name) { return values[name] !== undefined ? values[name] : all; });
  }

  function waitingItems() {
    var row = strip();
    return row ? Array.prototype.slice.call(row.querySelectorAll('.photo-item[data-held-id]')) : [];
  }

  // Numbers in the labels follow the row's order after a removal; waiting photos come after the kept ones.
  function relabel(labels) {
    items().concat(waitingItems()).forEach(function (item, index) {
      var n = String(index + 1);
      var img = item.querySelector('img');
      var button = item.querySelector('.photo-remove');
      var alt = item.hasAttribute('data-held-id') ? labels.waiting : labels.alt;
      if (img && alt) img.alt = format(alt, { n: n });
      if (button && labels.remove) button.setAttribute('aria-label', format(labels.remove, { n: n }));
    });
  }

  // The X icon, drawn like partials/icons/close.
  function closeIcon() {
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'icon'); svg.setAttribute('viewBox', '0 0 24 24'); svg.setAttribute('width', '24');
    svg.setAttribute('height', '24'); svg.setAttribute('aria-hidden', 'true'); svg.setAttribute('focusable', 'false');
    var path = document.createElementNS(ns, 'path');
    path.setAttribute('fill', 'none'); path.setAttribute('stroke', 'currentColor'); path.setAttribute('stroke-width', '2.2');
    path.setAttribute('stroke-linecap', 'round'); path.setAttribute('d', 'M6 6l12 12M18 6 6 18');
    svg.appendChild(path);
    return svg;
  }

  function append(photo, labels) {
    var row = strip();
    var draft = row.getAttribute('data-draft');
    var item = document.createElement('li');
    item.className = 'photo-item';
    item.setAttribute('data-id', photo.id);
    if (photo.latitude != null) item.setAttribute('data-lat', photo.latitude);
    if (photo.longitude != null) item.setAttribute('data-lon', photo.longitude);
    var img = document.createElement('img');
    img.className = 'photo-thumb';
    img.src = photo.thumb;
    img.width = 72;
    img.height = 72;
    img.alt = '';
    var form = document.createElement('form');
    form.className = 'photo-remove-form';
    form.method = 'post';
    form.action = '/api/drafts/' + draft + '/photos/' + photo.id + '/delete';
    var button = document.createElement('button');
    button.type = 'submit';
    button.className = 'photo-remove';
    button.appendChild(closeIcon());
    form.appendChild(button);
    item.appendChild(img);
    item.appendChild(form);
    // CRE-07: the new photo goes at the right end of the kept ones (before photos still waiting for a
    // wireless network, and the camera tile of the submission page).
    var tile = row.querySelector('.photo-waiting, .camera-tile-item');
    row.insertBefore(item, tile);
    relabel(labels);
    // CRE-10: the row scrolls; show the newest photo.
    row.scrollLeft = row.scrollWidth;
    return item;
  }

  // The cloud of the list's "not sent yet" rows (partials/icons/cloud-pending).
  function pendingIcon() {
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'icon photo-waiting-icon'); svg.setAttribute('viewBox', '0 0 24 24'); svg.setAttribute('width', '24');
    svg.setAttribute('height', '24'); svg.setAttribute('aria-hidden', 'true'); svg.setAttribute('focusable', 'false');
    var path = document.createElementNS(ns, 'path');
    path.setAttribute('fill', 'currentColor');
    path.setAttribute('d', 'M19.3 10A7.5 7.5 0 0 0 5.2 8 6 6 0 0 0 6 20h13a5 5 0 0 0 .3-10zM8 15.5a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3z'
      + 'm4 0a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3zm4 0a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3z');
    svg.appendChild(path);
    return svg;
  }

  // A photo waiting for a wireless network: its own picture from the device (a blob: URL), marked
  // waiting, with an X that drops it. No data-id: it is not on the server, so count() and the X's
  // server forms never see it. `before`: the tile it goes in front of (restored photos come before
  // ones taken while they were read back); else the end of the row.
  function appendWaiting(photo, labels, before) {
    var row = strip();
    var item = document.createElement('li');
    item.className = 'photo-item photo-waiting';
    item.setAttribute('data-held-id', photo.id);
    var img = document.createElement('img');
    img.className = 'photo-thumb';
    img.src = URL.createObjectURL(photo.blob);
    img.width = 72;
    img.height = 72;
    img.alt = '';
    var corner = document.createElement('div');
    corner.className = 'photo-remove-form';
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'photo-remove';
    button.appendChild(closeIcon());
    corner.appendChild(button);
    item.appendChild(img);
    item.appendChild(pendingIcon());
    item.appendChild(corner);
    row.insertBefore(item, before || row.querySelector('.camera-tile-item'));
    relabel(labels);
    row.scrollLeft = row.scrollWidth;
    return item;
  }

  function removeWaiting(item, labels) {
    var img = item.querySelector('img');
    if (img && img.src.indexOf('blob:') === 0) URL.revokeObjectURL(img.src);
    item.remove();
    relabel(labels);
  }

  // "2 photos are waiting for a wireless network and are not in the report yet. <question>"
  function heldWarning(n, words) {
    return (n === 1 ? words.one : format(words.many, { n: n })) + ' ' + words.question;
  }

  function remove(id, labels) {
    var row = strip();
    var draft = row.getAttribute('data-draft');
    return fetch('/api/drafts/' + draft + '/photos/' + id, {
      method: 'DELETE', credentials: 'same-origin',
      headers: { 'Accept': 'application/json', 'X-CSRF-Token': HAR.csrf() }
    }).then(function (response) {
      if (response.status === 410) {
        // The draft expired (the server removed it with its photos): say so, not "could not be removed".
        return response.json().then(function (body) { say(body && body.message ? body.message : labels.failed); });
      }
      if (response.status !== 200 && response.status !== 404) throw new Error('status ' + response.status);
      var item = row.querySelector('.photo-item[data-id="' + id + '"]');
      var next = item && (item.nextElementSibling || item.previousElementSibling);
      if (item) item.remove();
      relabel(labels);
      say(labels.removed);
      listeners.forEach(function (callback) { callback(id); });
      // Focus stays in the row, on the neighbour's X, or the next control.
      var focusTarget = next && next.querySelector('.photo-remove, .camera-tile');
      if (focusTarget) focusTarget.focus();
    }).catch(function () { say(labels.failed); });
  }

  function wire(labels) {
    var row = strip();
    if (!row) return;
    row.addEventListener('submit', function (event) {
      var item = event.target.closest('.photo-item[data-id]');
      if (!item) return;
      event.preventDefault();
      remove(item.getAttribute('data-id'), labels);
    });
  }

  // ---- Photos held for a wireless network (SET-03), on the device: one IndexedDB record per photo,
  // {id, draft, owner, order, heldAt, blob, name, fix}, read back by draft in capture order. Every call
  // settles: where IndexedDB is missing or refuses (a private window), photos wait in the page only,
  // as they did before it was used.
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

  var held = {
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
    // Photos of drafts other than the open one: this user's can never join theirs (submitted, cancelled
    // or expired); another user's of a shared device are theirs to send, unless held longer than the
    // draft retention (their draft is gone by then, short of visits from elsewhere).
    prune: function (owner, draft, heldBefore) {
      return deleteWhere(null, function (record) {
        return record.draft !== draft && (record.owner === owner || record.heldAt < heldBefore);
      });
    }
  };

  document.addEventListener('DOMContentLoaded', function () {
    var row = strip();
    var draft = row ? row.getAttribute('data-draft') : null;
    if (!draft) return;
    var heldHere = 0;
    var form = document.querySelector('form[data-held-question]');
    if (form) {
      held.list(draft).then(function (records) {
        heldHere = records.length;
        form.setAttribute('data-held-count', String(heldHere));
      });
    }

    // Capturing, on the document: these run before the page's own submit handlers.
    document.addEventListener('submit', function (event) {
      var target = event.target;
      // Cancel (CRE-01, SUB-01) discards the draft: its held photos go too, before the page does. The
      // form goes on once they are gone, or after a few seconds if the store does not answer.
      if (/\/reports\/new\/cancel$/.test(target.getAttribute('action') || '') && !target.hasAttribute('data-held-cleared')) {
        event.preventDefault();
        var go = function () {
          if (target.hasAttribute('data-held-cleared')) return;
          target.setAttribute('data-held-cleared', 'true');
          target.submit();
        };
        held.clear(draft).then(go);
        setTimeout(go, 3000);
        return;
      }
      // Submit on the submission page while photos of this draft wait on the device (SET-03): they would
      // not be part of the report. Say so and let the user stay.
      if (target === form && heldHere > 0) {
        var words = { one: form.getAttribute('data-held-one'), many: form.getAttribute('data-held-many'),
          question: form.getAttribute('data-held-question') };
        if (!window.confirm(heldWarning(heldHere, words))) {
          event.preventDefault();
          event.stopPropagation();
        }
      }
    }, true);
  });

  window.HARPhotos = {
    items: items, count: function () { return items().length; }, append: append, remove: remove, wire: wire,
    say: say, format: format, onRemoved: function (callback) { listeners.push(callback); },
    appendWaiting: appendWaiting, removeWaiting: removeWaiting, waitingCount: function () { return waitingItems().length; },
    heldWarning: heldWarning, held: held
  };
})();
