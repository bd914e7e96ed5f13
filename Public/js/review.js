// The coordinators' pages (issue 10): the dashboard's map of the filtered reports with clustered markers
// (Leaflet.markercluster, vendored from Debian), "filter to the map's area", a report's map of its
// photos, and the keyboard: on the dashboard J/K move between rows and Enter opens one; on a report's
// page A approves, R goes to the reject reason, I to the needs-info message, J/K to the next and
// previous report of the view.
// Everything here is an extra: every action is a form that works without it.
(function () {
  'use strict';

  function setUpMap() {
    var box = document.getElementById('review-map');
    if (!box || !window.L || typeof L.markerClusterGroup !== 'function') return;
    box.hidden = false;
    L.Icon.Default.imagePath = '/static/vendor/leaflet/images/';
    var map = L.map(box, { zoomControl: true, attributionControl: true }).setView([51.5, -0.12], 5);
    L.tileLayer(box.dataset.tiles, { maxZoom: 19, attribution: '© OpenStreetMap contributors' }).addTo(map);
    var cluster = L.markerClusterGroup();
    map.addLayer(cluster);
    window.HARReview = { map: map, cluster: cluster, loaded: false };
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
        window.HARReview.loaded = true;
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

  // A report's page (REV-06): its photos where they were taken, each with its accuracy as a circle.
  function setUpPhotoMap() {
    var box = document.getElementById('photo-map');
    if (!box || !window.L) return;
    var points;
    try { points = JSON.parse(box.dataset.points); } catch (e) { return; }
    if (!points || !points.length) return;
    box.hidden = false;
    L.Icon.Default.imagePath = '/static/vendor/leaflet/images/';
    var map = L.map(box, { zoomControl: true, attributionControl: true });
    L.tileLayer(box.dataset.tiles, { maxZoom: 19, attribution: '© OpenStreetMap contributors' }).addTo(map);
    // The view first (a circle's bounds need a map that has one), then the markers and circles.
    map.fitBounds(L.latLngBounds(points.map(function (point) { return [point[0], point[1]]; })),
      { maxZoom: 18, padding: [24, 24] });
    points.forEach(function (point) {
      var title = String(box.dataset.alt || '').replace('{n}', String(point[3]));
      L.marker([point[0], point[1]], { title: title, alt: title }).addTo(map);
      if (typeof point[2] === 'number' && point[2] > 0) {
        L.circle([point[0], point[1]], { radius: point[2], weight: 1, interactive: false }).addTo(map);
      }
    });
    box.dataset.markers = String(points.length);
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

  function go(id) {
    var link = document.getElementById(id);
    if (link) window.location.href = link.href;
  }

  function focusField(id) {
    var field = document.getElementById(id);
    if (field) { field.focus(); field.scrollIntoView({ block: 'center' }); }
  }

  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    var key = event.key.toLowerCase();
    var onReport = !!document.getElementById('review-history');
    var handled = true;
    if (onReport && key === 'a' && document.getElementById('act-approve')) document.getElementById('act-approve').click();
    else if (onReport && key === 'r') focusField('rj-reason');
    else if (onReport && key === 'i') focusField('ni-message');
    else if (onReport && key === 'j') go('next-report');
    else if (onReport && key === 'k') go('previous-report');
    else if (!onReport && key === 'j') moveRow(1);
    else if (!onReport && key === 'k') moveRow(-1);
    else handled = false;
    if (handled) event.preventDefault();
  });

  function setUp() {
    setUpMap();
    setUpPhotoMap();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
  else setUp();
})();

// A bulk's results: the Undo button goes away when its 10 seconds are over (the server refuses it then).
(function () {
  'use strict';
  var form = document.getElementById('undo-form');
  if (!form) return;
  var seconds = parseInt(form.dataset.seconds, 10) || 10;
  setTimeout(function () { form.hidden = true; }, seconds * 1000);
})();
