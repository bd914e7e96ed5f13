// The photo row of the creation and submission pages (CRE-08/09/10, SUB-04): each X is a small form
// that works without JavaScript; here it becomes a fetch DELETE, and the row updates in place.
// Exposes window.HARPhotos: items(), count(), append(photo, labels), remove(id), onRemoved(callback).
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

  // Numbers in the labels follow the row's order after a removal.
  function relabel(labels) {
    items().forEach(function (item, index) {
      var n = String(index + 1);
      var img = item.querySelector('img');
      var button = item.querySelector('.photo-remove');
      if (img && labels.alt) img.alt = format(labels.alt, { n: n });
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
    // CRE-07: the new photo goes at the right end (before the camera tile of the submission page).
    var tile = row.querySelector('.camera-tile-item');
    row.insertBefore(item, tile);
    relabel(labels);
    // CRE-10: the row scrolls; show the newest photo.
    row.scrollLeft = row.scrollWidth;
    return item;
  }

  function remove(id, labels) {
    var row = strip();
    var draft = row.getAttribute('data-draft');
    return fetch('/api/drafts/' + draft + '/photos/' + id, {
      method: 'DELETE', credentials: 'same-origin',
      headers: { 'Accept': 'application/json', 'X-CSRF-Token': HAR.csrf() }
    }).then(function (response) {
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

  window.HARPhotos = {
    items: items, count: function () { return items().length; }, append: append, remove: remove, wire: wire,
    say: say, format: format, onRemoved: function (callback) { listeners.push(callback); }
  };
})();
