// The map (CRE-02/03/04/07/09): the user's position, re-centred on each fix, and a marker per photo.
// It works without tiles (offline): position and markers still show.
import { page, state, t } from './page.js';
import * as strip from '../photo-strip.js';

export function startMap() {
  const mapNode = document.getElementById('map');
  if (!window.L || !mapNode) return;
  state.map = L.map(mapNode, { zoomControl: true, attributionControl: true }).setView([51.5, -0.12], 3);
  const tiles = L.tileLayer(page.tileURL, { maxZoom: 19, attribution: '© OpenStreetMap contributors' });
  tiles.on('tileerror', function () { /* offline or blocked: the map stays usable without them */ });
  tiles.addTo(state.map);
  page.photos.forEach(function (photo, index) { addMarker(photo, index + 1); });
}

export function addMarker(photo, number) {
  if (!state.map || photo.latitude == null || photo.longitude == null) return;
  const marker = L.circleMarker([photo.latitude, photo.longitude], {
    radius: 8, color: '#FFFFFF', weight: 2, fillColor: '#8F2227', fillOpacity: 1
  }).addTo(state.map);
  marker.bindTooltip(strip.format(t('create.photoMarker'), { n: number }));
  if (marker.getElement && marker.getElement()) marker.getElement().classList.add('photo-marker');
  state.markers[photo.id] = marker;
}

export function removeMarker(id) {
  const marker = state.markers[id];
  if (marker && state.map) state.map.removeLayer(marker);
  delete state.markers[id];
}

// CRE-04: the user's marker moves and the map re-centres on every new acceptable position.
export function showPosition(latitude, longitude) {
  if (!state.map) return;
  const here = [latitude, longitude];
  if (!state.userMarker) {
    state.userMarker = L.circleMarker(here, { radius: 9, color: '#FFFFFF', weight: 3, fillColor: '#208AD4', fillOpacity: 1 })
      .addTo(state.map).bindTooltip(t('create.youAreHere'));
  } else {
    state.userMarker.setLatLng(here);
  }
  state.map.setView(here, Math.max(state.map.getZoom(), 17), { animate: false });
}
