// A report's page on the review, and its triage mode (REV-06, REV-13): the map of the place and its
// photos, the photo viewer (← →, + −, Escape), the decision bar's pickers and the keyboard: A approve,
// R reject then a digit for the reason, I ask for information, D duplicate of then a digit for one of
// the nearby reports, U undo, J and K next and previous, ? the list of keys.
// Everything here is an extra: each decision is a plain form, each picker a <details>, each photo a link.
// An ES module (after Leaflet, the one global it uses).

function byId(id) { return document.getElementById(id); }

function parse(text) {
  if (!text) return null;
  try { return JSON.parse(text); } catch (e) { return null; }
}

// The place (a dot, its accuracy a circle) and each photo where it was taken (a marker and a circle).
function setUpMap() {
  var box = byId('photo-map');
  if (!box || !window.L) return;
  var points = parse(box.dataset.points) || [];
  var place = parse(box.dataset.place);
  if (!points.length && !place) return;
  box.hidden = false;
  L.Icon.Default.imagePath = '/static/vendor/leaflet/images/';
  var map = L.map(box, { zoomControl: true, attributionControl: true });
  L.tileLayer(box.dataset.tiles, { maxZoom: 19, attribution: '© OpenStreetMap contributors' }).addTo(map);
  var all = points.map(function (point) { return [point[0], point[1]]; });
  if (place) all.push([place[0], place[1]]);
  // The view first (a circle's bounds need a map that has one), then the markers and circles.
  map.fitBounds(L.latLngBounds(all), { maxZoom: 18, padding: [24, 24] });
  if (place) {
    L.circleMarker([place[0], place[1]], { radius: 8, color: '#B00020', fillOpacity: 0.8, interactive: false })
      .addTo(map);
    if (typeof place[2] === 'number' && place[2] > 0) {
      L.circle([place[0], place[1]], { radius: place[2], color: '#B00020', weight: 1, interactive: false }).addTo(map);
    }
  }
  points.forEach(function (point) {
    var title = String(box.dataset.alt || '').replace('{n}', String(point[3]));
    L.marker([point[0], point[1]], { title: title, alt: title }).addTo(map);
    if (typeof point[2] === 'number' && point[2] > 0) {
      L.circle([point[0], point[1]], { radius: point[2], weight: 1, interactive: false }).addTo(map);
    }
  });
  box.dataset.markers = String(points.length);
}

// The photo viewer: a modal dialog (the page behind is inert), focus back on the photo it opened from.
var viewer = { open: function () { return false; } };
function setUpViewer() {
  var dialog = byId('photo-viewer');
  var links = Array.prototype.slice.call(document.querySelectorAll('.photo-open'));
  if (!dialog || !links.length || typeof dialog.showModal !== 'function') return;
  var image = byId('viewer-image');
  var stage = byId('viewer-stage');
  var counter = byId('viewer-counter');
  var index = 0;
  var zoom = 1;
  var opener = null;
  function setZoom(value) {
    zoom = Math.max(1, Math.min(4, value));
    image.style.maxWidth = zoom === 1 ? '' : 'none';
    image.style.maxHeight = zoom === 1 ? '' : 'none';
    image.style.width = zoom === 1 ? '' : (zoom * 100) + '%';
    stage.dataset.zoom = String(zoom);
    byId('viewer-zoom-out').setAttribute('aria-disabled', String(zoom === 1));
    byId('viewer-zoom-in').setAttribute('aria-disabled', String(zoom === 4));
  }
  function show(at) {
    index = (at + links.length) % links.length;
    var link = links[index];
    image.src = link.dataset.src;
    image.alt = link.querySelector('img').alt;
    counter.textContent = counter.dataset.format.replace('{n}', String(index + 1))
      .replace('{count}', String(links.length));
    dialog.dataset.index = String(index + 1);
    setZoom(1);
  }
  var single = links.length < 2;
  byId('viewer-prev').hidden = single;
  byId('viewer-next').hidden = single;
  links.forEach(function (link, at) {
    link.addEventListener('click', function (event) {
      event.preventDefault();
      opener = link;
      show(at);
      dialog.showModal();
      byId('viewer-close').focus();
    });
  });
  byId('viewer-prev').addEventListener('click', function () { show(index - 1); });
  byId('viewer-next').addEventListener('click', function () { show(index + 1); });
  byId('viewer-zoom-in').addEventListener('click', function () { setZoom(zoom * 2); });
  byId('viewer-zoom-out').addEventListener('click', function () { setZoom(zoom / 2); });
  byId('viewer-close').addEventListener('click', function () { dialog.close(); });
  dialog.addEventListener('close', function () {
    image.src = 'data:,';
    if (opener) opener.focus();
  });
  dialog.addEventListener('keydown', function (event) {
    var handled = true;
    if (event.key === 'ArrowLeft' && !single) show(index - 1);
    else if (event.key === 'ArrowRight' && !single) show(index + 1);
    else if (event.key === '+' || event.key === '=') setZoom(zoom * 2);
    else if (event.key === '-' || event.key === '−') setZoom(zoom / 2);
    else handled = false;
    if (handled) event.preventDefault();
    // Nothing of the page's keys while the photos are open: A would decide a report out of sight.
    if (event.key !== 'Tab' && event.key !== 'Escape') event.stopPropagation();
  });
  viewer.open = function () { return dialog.open; };
}

// The pickers of the decision bar: one open at a time; R, I and D open theirs.
var pickers = ['reject-box', 'info-box', 'dup-box', 'more-box'].map(byId).filter(Boolean);
function openPicker() {
  return pickers.filter(function (box) { return box.open; })[0] || null;
}
pickers.forEach(function (box) {
  box.addEventListener('toggle', function () {
    if (!box.open) return;
    pickers.forEach(function (other) { if (other !== box) other.open = false; });
  });
});

function open(id, focusSelector) {
  var box = byId(id);
  if (!box) return;
  box.open = true;
  var field = box.querySelector(focusSelector) || box.querySelector('input:not([type=hidden])');
  if (field) { field.focus(); field.scrollIntoView({ block: 'nearest' }); }
}

function submit(box, radio) {
  radio.checked = true;
  var button = box.querySelector('button[type=submit]');
  if (button) button.click();
}

// Text is being typed: no key is a shortcut then (a radio or a button is not a text field).
function typing(target) {
  if (!target || !target.tagName) return false;
  if (target.tagName === 'INPUT') return !/^(radio|checkbox|button|submit|reset)$/.test(target.type);
  return target.tagName === 'SELECT' || target.tagName === 'TEXTAREA' || target.isContentEditable;
}

function go(id) {
  var link = byId(id);
  if (link) window.location.href = link.href;
}

function showKeys() {
  var dialog = byId('keys-dialog');
  if (dialog && typeof dialog.showModal === 'function' && !dialog.open) dialog.showModal();
}

document.addEventListener('keydown', function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  if (viewer.open() || document.querySelector('dialog[open]')) return;
  var key = event.key;
  var box = openPicker();
  if (key === 'Escape' && box) {
    box.open = false;
    box.querySelector('summary').focus();
    event.preventDefault();
    return;
  }
  if (typing(event.target)) return;
  // In an open picker: a digit picks that choice and decides; Enter decides with the one at hand.
  if (box && /^[1-9]$/.test(key)) {
    var numbered = box.querySelector('input[type=radio][data-n="' + key + '"]');
    if (numbered) { event.preventDefault(); submit(box, numbered); }
    return;
  }
  if (box && key === 'Enter' && event.target.type === 'radio') {
    event.preventDefault();
    submit(box, box.querySelector('input[type=radio]:checked') || event.target);
    return;
  }
  var handled = true;
  switch (key.toLowerCase()) {
    case 'a': if (byId('act-approve')) byId('act-approve').click(); else handled = false; break;
    case 'r': open('reject-box', 'input[type=radio]:checked, input[type=radio]'); break;
    case 'i': open('info-box', '#ni-message'); break;
    case 'd': open('dup-box', 'input[type=radio]:checked, input[type=radio], #dup-of'); break;
    case 'u':
      var undo = byId('undo-form');
      if (undo && !undo.hidden) byId('undo-button').click(); else handled = false;
      break;
    case 'j': go('next-report'); break;
    case 'k': go('previous-report'); break;
    case '?': showKeys(); break;
    default: handled = false;
  }
  if (handled) event.preventDefault();
});

function setUp() {
  setUpMap();
  setUpViewer();
  var keys = byId('keys-open');
  if (keys) {
    keys.hidden = false;
    keys.addEventListener('click', showKeys);
  }
  // The Undo goes away when its seconds are over: the server refuses it then.
  var undo = byId('undo-form');
  if (undo) {
    setTimeout(function () { undo.hidden = true; }, (parseInt(undo.dataset.seconds, 10) || 10) * 1000);
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
else setUp();
