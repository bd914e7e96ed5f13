// The register's sites on the device (SITE-02): online, the sites around where the device is
// (`GET /api/sites/near`: the 200 nearest within 5 km) are kept in IndexedDB, one record replaced
// when the device has moved a kilometre or a day has passed; offline, the submission page offers
// the kept sites nearest the photos (else nearest where it was last online). A pick fills the name,
// designation and grade, which stay editable; the report carries `site_id`.
import { openStore } from './store.js';

const places = openStore({ name: 'har-sites', store: 'places' });
const KEY = 'around';
const MOVED_METRES = 1000;
const KEPT_MS = 24 * 3600 * 1000;
export const OFFER_METRES = 2000;
export const OFFER_LIMIT = 8;

// Great-circle distance in metres (haversine), as the server's Geo.distance.
export function metres(lat1, lon1, lat2, lon2) {
  const r = Math.PI / 180;
  const dLat = (lat2 - lat1) * r;
  const dLon = (lon2 - lon1) * r;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371000 * Math.atan2(Math.sqrt(a), Math.sqrt(1 - a));
}

// Online: keeps the sites around the point unless those kept are recent and near enough.
export function keepAround(latitude, longitude) {
  if (navigator.onLine === false || !isFinite(latitude) || !isFinite(longitude)) return Promise.resolve(null);
  return places.get(KEY).catch(function () { return null; }).then(function (kept) {
    if (kept && Date.now() - kept.at < KEPT_MS && metres(kept.lat, kept.lon, latitude, longitude) < MOVED_METRES) {
      return kept;
    }
    const url = '/api/sites/near?lat=' + encodeURIComponent(latitude) + '&lon=' + encodeURIComponent(longitude);
    return fetch(url, { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) {
        if (!body || !Array.isArray(body.sites)) return kept;
        const record = { id: KEY, at: Date.now(), lat: latitude, lon: longitude, sites: body.sites };
        return places.put(record).then(function () { return record; });
      });
  }).catch(function () { return null; });
}

// The kept sites nearest any of `points` ({latitude, longitude}); none given: nearest the place kept.
export function keptNear(points) {
  return places.get(KEY).then(function (kept) {
    if (!kept) return [];
    const from = points.length ? points : [{ latitude: kept.lat, longitude: kept.lon }];
    return kept.sites.map(function (site) {
      const distance = Math.min.apply(null, from.map(function (p) { return metres(p.latitude, p.longitude, site.lat, site.lon); }));
      return { site: site, distance: distance };
    }).filter(function (near) { return near.distance <= OFFER_METRES; })
      .sort(function (a, b) { return a.distance - b.distance || a.site.id - b.site.id; })
      .slice(0, OFFER_LIMIT);
  }).catch(function () { return []; });
}

export function distanceText(value) {
  return value < 1000 ? Math.round(value) + ' m' : (value / 1000).toFixed(1) + ' km';
}

// A pick fills the form's name, designation and grade (still editable); "Not in the list" leaves them.
export function wireChoice(fieldset, form, onPick) {
  fieldset.addEventListener('change', function (event) {
    const radio = event.target;
    if (!radio || radio.name !== 'site_id') return;
    if (radio.value) {
      ['name', 'designation', 'grade'].forEach(function (field) {
        const value = radio.getAttribute('data-' + field);
        if (value && form.elements[field]) form.elements[field].value = value;
      });
    }
    if (onPick) onPick(radio.value);
  });
}

// The offline page's radios, before "Not in the list", built from the kept sites.
export function renderChoice(fieldset, nearest, chosen) {
  const none = document.getElementById('site-none').closest('label');
  nearest.forEach(function (near) {
    const site = near.site;
    const label = document.createElement('label');
    label.className = 'site-option';
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'site_id';
    radio.value = String(site.id);
    radio.id = 'site-option-' + site.id;
    radio.setAttribute('data-name', site.name);
    radio.setAttribute('data-designation', site.designation || '');
    radio.setAttribute('data-grade', site.grade || '');
    if (String(chosen) === String(site.id)) radio.checked = true;
    const text = document.createElement('span');
    text.className = 'site-option-text';
    const name = document.createElement('span');
    name.className = 'site-option-name';
    name.textContent = site.name;
    const meta = document.createElement('span');
    meta.className = 'site-option-meta';
    meta.textContent = [site.designationLabel, distanceText(near.distance)].filter(Boolean).join(' · ');
    text.appendChild(name);
    text.appendChild(document.createTextNode(' '));
    text.appendChild(meta);
    label.appendChild(radio);
    label.appendChild(document.createTextNode(' '));
    label.appendChild(text);
    fieldset.insertBefore(label, none);
  });
  fieldset.hidden = nearest.length === 0;
}
