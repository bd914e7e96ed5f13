// The register's pages on the review (docs/SITES.md): a site's point and outline on the map
// (/review/sites/{id}), and the register's map of the sites that match in its area, each dot coloured by
// its current condition with the condition in words in its popup and in the table beside (/review/sites,
// review-sites-map.js). Everything here is an extra: the pages' tables and forms work without it. An ES
// module (after Leaflet and, on the register, its cluster plug-in: the globals it uses).

import { registerMap } from './review-sites-map.js';

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

function setUp() { siteMap(); registerMap(baseMap); }

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
else setUp();
