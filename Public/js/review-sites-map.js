// The register's map (/review/sites, docs/SITES.md): every site of the page's filter in the map's
// visible area, not only the table's page. Each time the map stops moving (Leaflet's `moveend`, one event
// per pan or zoom, so no timer), it asks /review/sites/map.geojson for the area's box with the filter,
// drops an answer overtaken by a later move, clusters the sites (Leaflet.markercluster, vendored from
// Debian), colours each dot by its current condition and a cluster by its worst, and says in words how
// many sites it shows, and of how many when the area holds more than the server answers at once.
// The table's page of sites gives the first view. An extra: the table works without it.

export var COLOURS = { bad: '#C62828', poor: '#E65100', fair: '#F9A825', good: '#2E7D32', none: '#757575' };
var RANK = { bad: 0, poor: 1, fair: 2, good: 3 };

function parse(text) {
  if (!text) return null;
  try { return JSON.parse(text); } catch (e) { return null; }
}

function wrap(longitude) { return ((longitude + 180) % 360 + 360) % 360 - 180; }

// Leaflet's bounds as the server's bbox, WEST,SOUTH,EAST,NORTH in degrees: longitudes wrapped into
// -180…180 (a west above its east crosses the antimeridian, which the server takes as such), the whole
// world's longitudes when the view is wider than it, latitudes within ±90.
export function bbox(bounds) {
  var west = bounds.getWest();
  var east = bounds.getEast();
  if (east - west >= 360) { west = -180; east = 180; } else { west = wrap(west); east = wrap(east); }
  if (east === -180 && west > -180) east = 180;
  var south = Math.max(-90, bounds.getSouth());
  var north = Math.min(90, bounds.getNorth());
  return [west, south, east, north].map(function (n) { return n.toFixed(6); }).join(',');
}

// A cluster: how many sites it holds, in the colour of the worst current condition among them.
function clusterIcon(cluster) {
  var worst = 'none';
  cluster.getAllChildMarkers().forEach(function (marker) {
    var condition = marker.options.condition;
    if (condition in RANK && (worst === 'none' || RANK[condition] < RANK[worst])) worst = condition;
  });
  var count = document.createElement('span');
  count.textContent = String(cluster.getChildCount());
  return L.divIcon({ html: count, className: 'sites-cluster condition-dot-' + worst, iconSize: L.point(48, 48) });
}

function dot(feature) {
  var at = feature.geometry.coordinates;  // RFC 7946: [longitude, latitude]
  var site = feature.properties;
  var marker = L.circleMarker([at[1], at[0]], {
    radius: 8, color: '#FFFFFF', weight: 2, fillColor: COLOURS[site.condition] || COLOURS.none, fillOpacity: 0.95,
    condition: site.condition
  });
  marker.bindPopup(function () {
    var box = document.createElement('div');
    var link = document.createElement('a');
    link.href = site.url;
    link.textContent = site.name;
    box.appendChild(link);
    box.appendChild(document.createTextNode(' · ' + site.label));
    return box;
  });
  return marker;
}

// The sites of the area as the server answered them, in place of the area before.
function draw(box, cluster, status, collection) {
  // Sites of no condition first, so that a coloured dot is drawn over a grey one at the same place.
  var features = (collection.features || []).slice().sort(function (a, b) {
    return (a.properties.condition === 'none' ? 0 : 1) - (b.properties.condition === 'none' ? 0 : 1);
  });
  cluster.clearLayers();
  cluster.addLayers(features.map(dot));
  status.textContent = collection.notice || '';
  status.hidden = !status.textContent;
  box.dataset.truncated = collection.truncated ? 'true' : 'false';
  box.dataset.markers = String(features.length);
}

export function registerMap(baseMap) {
  var box = document.getElementById('sites-map');
  var status = document.getElementById('sites-map-status');
  var data = document.getElementById('sites-map-data');
  if (!box || !status || !window.L || typeof L.markerClusterGroup !== 'function') return;
  var map = baseMap(box);
  var cluster = L.markerClusterGroup({ iconCreateFunction: clusterIcon, showCoverageOnHover: false });
  map.addLayer(cluster);
  var asked = 0;
  var pending = null;

  function load() {
    asked += 1;
    var mine = asked;
    if (pending) pending.abort();
    pending = typeof AbortController === 'function' ? new AbortController() : null;
    var url = new URL(box.dataset.source, window.location.href);
    url.searchParams.set('bbox', bbox(map.getBounds()));
    box.setAttribute('aria-busy', 'true');
    fetch(url.toString(), {
      credentials: 'same-origin', headers: { 'Accept': 'application/geo+json' },
      signal: pending ? pending.signal : undefined
    }).then(function (response) {
      if (!response.ok) throw new Error('map ' + response.status);
      return response.json();
    }).then(function (collection) {
      if (mine !== asked) return;
      box.removeAttribute('aria-busy');
      draw(box, cluster, status, collection);
    }).catch(function () {
      if (mine !== asked) return;  // overtaken (aborted) by a later move: that one answers
      box.removeAttribute('aria-busy');
      status.textContent = box.dataset.failed;
      status.hidden = false;
    });
  }

  // The first view: the table's page of sites, else the country.
  var points = (parse(data && data.textContent) || []).map(function (site) { return [site.lat, site.lon]; });
  if (points.length) map.fitBounds(points, { maxZoom: 15, padding: [24, 24] });
  else map.setView([52.5, -1.5], 5);
  map.on('moveend', load);
  load();
}
