// The register's pages on the review (docs/SITES.md): a site's point and outline on the map
// (/review/sites/{id}), and the register's page of sites on a map, each dot coloured by its current
// condition with the condition in words in its popup and in the table beside (/review/sites).
// Everything here is an extra: the pages' tables and forms work without it. An ES module (after
// Leaflet, the one global it uses).

var COLOURS = { bad: '#C62828', poor: '#E65100', fair: '#F9A825', good: '#2E7D32', none: '#757575' };

function parse(text) {
  if (!text) return null;
  try { return JSON.parse(text); } catch (e) { return null; }
}

function baseMap(box) {
  box.hidden = false;
  L.Icon.Default.imagePath = '/static/vendor/leaflet/images/';
  var map = L.map(box, { zoomControl: true, attributionControl: true });
  L.tileLayer(box.dataset.tiles, { maxZoom: 19, attribution: '© OpenStreetMap contributors' }).addTo(map);
  return map;
}

// A site: its outline (GeoJSON Polygon or MultiPolygon, as the register keeps it) and its point.
function siteMap() {
  var box = document.getElementById('site-map');
  if (!box || !window.L) return;
  var point = parse(box.dataset.point);
  if (!point) return;
  var map = baseMap(box);
  var outline = parse(box.dataset.outline);
  var bounds = L.latLngBounds([[point[0], point[1]]]);
  if (outline && (outline.type === 'Polygon' || outline.type === 'MultiPolygon')) {
    var layer = L.geoJSON(outline, { style: { color: '#8F2227', weight: 2, fillOpacity: 0.15 }, interactive: false });
    layer.addTo(map);
    bounds.extend(layer.getBounds());
    box.dataset.outlined = 'true';
  }
  map.fitBounds(bounds, { maxZoom: 17, padding: [24, 24] });
  L.marker([point[0], point[1]], { title: box.dataset.title, alt: box.dataset.title }).addTo(map);
}

// The register's page of sites.
function registerMap() {
  var box = document.getElementById('sites-map');
  var data = document.getElementById('sites-map-data');
  if (!box || !data || !window.L) return;
  // Sites of no condition first, so that a coloured dot is drawn over a grey one at the same place.
  var sites = (parse(data.textContent) || []).slice().sort(function (a, b) {
    return (a.condition === 'none' ? 0 : 1) - (b.condition === 'none' ? 0 : 1);
  });
  var map = baseMap(box);
  var bounds = [];
  sites.forEach(function (site) {
    var colour = COLOURS[site.condition] || COLOURS.none;
    var dot = L.circleMarker([site.lat, site.lon], {
      radius: 8, color: '#FFFFFF', weight: 2, fillColor: colour, fillOpacity: 0.95
    });
    dot.bindPopup(function () {
      var box = document.createElement('div');
      var link = document.createElement('a');
      link.href = '/review/sites/' + site.id;
      link.textContent = site.name;
      box.appendChild(link);
      box.appendChild(document.createTextNode(' · ' + site.label));
      return box;
    });
    dot.addTo(map);
    bounds.push([site.lat, site.lon]);
  });
  if (bounds.length) map.fitBounds(bounds, { maxZoom: 15, padding: [24, 24] });
  else map.setView([52.5, -1.5], 5);
  box.dataset.markers = String(bounds.length);
}

function setUp() { siteMap(); registerMap(); }

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
else setUp();
