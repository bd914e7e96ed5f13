// The coordinators' dashboard: the map of the filtered reports with clustered markers
// (Leaflet.markercluster, vendored from Debian), "filter to the map's area", and the keyboard: J/K move
// between rows and Enter opens one. A report's page has its own script, review-report.js.
// Everything here is an extra: every action is a form that works without it. The page's ES module (after
// Leaflet and its cluster plug-in, the globals it uses); the queue's bar and the map's toggle are
// review-queue.js's. `review` holds the map once drawn (`loaded` once its markers are in).
import { setUpQueue } from './review-queue.js';

export const review = { map: null, cluster: null, loaded: false };

function setUpMap() {
  var box = document.getElementById('review-map');
  if (!box || !window.L || typeof L.markerClusterGroup !== 'function') return;
  box.hidden = false;
  L.Icon.Default.imagePath = '/static/vendor/leaflet/images/';
  var map = L.map(box, { zoomControl: true, attributionControl: true }).setView([51.5, -0.12], 5);
  L.tileLayer(box.dataset.tiles, { maxZoom: 19, attribution: '© OpenStreetMap contributors' }).addTo(map);
  var cluster = L.markerClusterGroup();
  map.addLayer(cluster);
  review.map = map;
  review.cluster = cluster;
  fetch(box.dataset.source, { credentials: 'same-origin', headers: { 'Accept': 'application/geo+json' } })
    .then(function (response) { return response.ok ? response.json() : { features: [] }; })
    .then(function (collection) {
      var query = window.location.search;
      collection.features.forEach(function (feature) {
        if (!feature.geometry) return;
        var at = feature.geometry.coordinates;  // RFC 7946: [longitude, latitude]
        var marker = L.marker([at[1], at[0]], { title: feature.properties.name || '' });
        marker.bindPopup(function () {
          var link = document.createElement('a');
          link.href = '/review/reports/' + feature.properties.id + query;
          link.textContent = (feature.properties.name || '#' + feature.properties.id) + ' · ' + box.dataset.open;
          return link;
        });
        cluster.addLayer(marker);
      });
      if (cluster.getLayers().length) map.fitBounds(cluster.getBounds(), { maxZoom: 16, padding: [24, 24] });
      review.loaded = true;
      box.dataset.markers = String(cluster.getLayers().length);
    });
  var button = document.getElementById('map-bounds');
  if (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var b = map.getBounds();
      var field = document.getElementById('f-bounds');
      field.value = [b.getSouth(), b.getWest(), b.getNorth(), b.getEast()].map(function (n) {
        return n.toFixed(5);
      }).join(',');
      field.form.submit();
    });
  }
}

function typing(target) {
  if (!target) return false;
  var tag = target.tagName;
  return tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || target.isContentEditable;
}

function moveRow(step) {
  var links = Array.prototype.slice.call(document.querySelectorAll('#review-table .review-link'));
  if (!links.length) return;
  var index = links.indexOf(document.activeElement);
  var next = index < 0 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, index + step));
  links[next].focus();
  links[next].closest('tr').scrollIntoView({ block: 'nearest' });
}

document.addEventListener('keydown', function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
  var key = event.key.toLowerCase();
  var handled = true;
  if (key === 'j') moveRow(1);
  else if (key === 'k') moveRow(-1);
  else handled = false;
  if (handled) event.preventDefault();
});

// A bulk's results: the Undo button goes away when its 10 seconds are over (the server refuses it then).
function hideUndo() {
  var form = document.getElementById('undo-form');
  if (!form) return;
  var seconds = parseInt(form.dataset.seconds, 10) || 10;
  setTimeout(function () { form.hidden = true; }, seconds * 1000);
}

function setUp() {
  setUpQueue(review);
  setUpMap();
  hideUndo();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
else setUp();

