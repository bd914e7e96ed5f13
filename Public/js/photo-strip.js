// The photo row of the creation and submission pages (CRE-08/09/10, SUB-04): each X is a small form
// that works without JavaScript; here it becomes a fetch DELETE, and the row updates in place.
// Photos held for a wireless network (SET-03) are kept on the device (IndexedDB) and shown at the end
// of the row as waiting; Cancel drops them, and Submit warns while the draft has some.
// An ES module, imported by the pages that show the row (create/, submit.js): items(), count(),
// append(photo, labels), remove(id), onRemoved(callback), appendWaiting(photo, labels, before),
// removeWaiting(item, labels), waitingCount(), heldWarning(n, words), say(text), format(text, values).
import * as held from './held-photos.js';
import { get, remove as removeRecord } from './outbox.js';
import { csrf } from './core/http.js';
import { format } from './core/format.js';

export { format };

var listeners = [];

function strip() { return document.getElementById('photo-strip'); }

export function items() {
  var row = strip();
  return row ? Array.prototype.slice.call(row.querySelectorAll('.photo-item[data-id]')) : [];
}

export function say(text) {
  var node = document.getElementById('photo-message');
  if (node) node.textContent = text || '';
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

// An icon as the templates draw them (partials/icons/*): a 24×24 SVG hidden from assistive
// technology, with one path.
function icon(className, pathAttributes) {
  var ns = 'http://www.w3.org/2000/svg';
  var svg = document.createElementNS(ns, 'svg');
  var attributes = { 'class': className, viewBox: '0 0 24 24', width: '24', height: '24', 'aria-hidden': 'true',
    focusable: 'false' };
  Object.keys(attributes).forEach(function (name) { svg.setAttribute(name, attributes[name]); });
  var path = document.createElementNS(ns, 'path');
  Object.keys(pathAttributes).forEach(function (name) { path.setAttribute(name, pathAttributes[name]); });
  svg.appendChild(path);
  return svg;
}

// The X (partials/icons/close).
function closeIcon() {
  return icon('icon', { fill: 'none', stroke: 'currentColor', 'stroke-width': '2.2', 'stroke-linecap': 'round',
    d: 'M6 6l12 12M18 6 6 18' });
}

// A tile's picture; relabel() gives it its alt text.
function thumbnail(src) {
  var img = document.createElement('img');
  img.className = 'photo-thumb';
  img.src = src;
  img.width = 72;
  img.height = 72;
  img.alt = '';
  return img;
}

// The round X in a tile's corner: `<tag class="photo-remove-form"><button type="…">`.
function removeCorner(tag, buttonType) {
  var corner = document.createElement(tag);
  corner.className = 'photo-remove-form';
  var button = document.createElement('button');
  button.type = buttonType;
  button.className = 'photo-remove';
  button.appendChild(closeIcon());
  corner.appendChild(button);
  return corner;
}

export function append(photo, labels) {
  var row = strip();
  var draft = row.getAttribute('data-draft');
  var item = document.createElement('li');
  item.className = 'photo-item';
  item.setAttribute('data-id', photo.id);
  if (photo.latitude != null) item.setAttribute('data-lat', photo.latitude);
  if (photo.longitude != null) item.setAttribute('data-lon', photo.longitude);
  var img = thumbnail(photo.thumb);
  // A form, so that the X works as the server-rendered one does (photo-strip.mustache).
  var form = removeCorner('form', 'submit');
  form.method = 'post';
  form.action = '/api/drafts/' + draft + '/photos/' + photo.id + '/delete';
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
  return icon('icon photo-waiting-icon', { fill: 'currentColor',
    d: 'M19.3 10A7.5 7.5 0 0 0 5.2 8 6 6 0 0 0 6 20h13a5 5 0 0 0 .3-10zM8 15.5a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3z'
      + 'm4 0a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3zm4 0a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3z' });
}

// A photo waiting for a wireless network: its own picture from the device (a blob: URL), marked
// waiting, with an X that drops it. No data-id: it is not on the server, so count() and the X's
// server forms never see it. `before`: the tile it goes in front of (restored photos come before
// ones taken while they were read back); else the end of the row.
export function appendWaiting(photo, labels, before) {
  var row = strip();
  var item = document.createElement('li');
  item.className = 'photo-item photo-waiting';
  item.setAttribute('data-held-id', photo.id);
  var img = thumbnail(URL.createObjectURL(photo.blob));
  var corner = removeCorner('div', 'button');
  item.appendChild(img);
  item.appendChild(pendingIcon());
  item.appendChild(corner);
  row.insertBefore(item, before || row.querySelector('.camera-tile-item'));
  relabel(labels);
  row.scrollLeft = row.scrollWidth;
  return item;
}

export function removeWaiting(item, labels) {
  var img = item.querySelector('img');
  if (img && img.src.indexOf('blob:') === 0) URL.revokeObjectURL(img.src);
  item.remove();
  relabel(labels);
}

// "2 photos are waiting for a wireless network and are not in the report yet. <question>"
export function heldWarning(n, words) {
  return (n === 1 ? words.one : format(words.many, { n: n })) + ' ' + words.question;
}

export function remove(id, labels) {
  var row = strip();
  var draft = row.getAttribute('data-draft');
  return fetch('/api/drafts/' + draft + '/photos/' + id, {
    method: 'DELETE', credentials: 'same-origin',
    headers: { 'Accept': 'application/json', 'X-CSRF-Token': csrf() }
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

export function wire(labels) {
  var row = strip();
  if (!row) return;
  row.addEventListener('submit', function (event) {
    var item = event.target.closest('.photo-item[data-id]');
    if (!item) return;
    event.preventDefault();
    remove(item.getAttribute('data-id'), labels);
  });
}

// Photos held for a wireless network (SET-03), on the device (held-photos.js): Cancel drops them, and
// Submit asks first while the draft has some.
function guardForms() {
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
      // Photos of this draft kept in the device's outbox (the network gone while it was open) go too.
      var outboxCleared = function () {
        return get(draft).then(function (record) {
          if (record && record.status === 'open') return removeRecord(draft);
        });
      };
      held.clear(draft).then(outboxCleared).then(go, go);
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
}

export function count() { return items().length; }
export function waitingCount() { return waitingItems().length; }
export function onRemoved(callback) { listeners.push(callback); }

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', guardForms); else guardForms();
