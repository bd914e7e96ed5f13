// Report creation (CRE-01..11, SET-01..03), the page's ES module (<script type="module">, after
// Leaflet, the one global it uses; the photo row is photo-strip.js's, imported): the camera preview and
// capture, the photo row, the map that follows the user, the GPS accuracy alert, photos held for a
// wireless network, and the file-input fallback when there is no camera. One module each:
//   page.js      the server's data for the page, the words, the shared state (`state`)
//   map.js       the map, the user's position and a marker per photo
//   location.js  the fixes kept or ignored (SET-01) and the GPS alert (SET-02)
//   holding.js   photos waiting on the device for a wireless network (SET-03)
//   uploads.js   photos sent to the draft, in order, retried, or held
//   offline.js   the report moved to the device's outbox when the network drops (OFF-02)
//   limit.js     the 20-photo limit (CRE-11)
//   camera.js    the preview and the shutter, else the file input
// Without JavaScript (or modules) the page still works: the server's forms do it all.
import { labels } from './page.js';
import { startMap, removeMarker } from './map.js';
import { updateFull } from './limit.js';
import { startLocation } from './location.js';
import { startHolding } from './holding.js';
import { queue } from './uploads.js';
import { startCamera } from './camera.js';
import { startOffline } from './offline.js';
import * as strip from '../photo-strip.js';

function start() {
  strip.wire(labels);
  startMap();
  strip.onRemoved(function (id) {
    removeMarker(id);
    updateFull();
  });
  startLocation();
  startHolding(queue);
  startOffline(queue);
  startCamera();
}

// A module runs once the document is parsed, before DOMContentLoaded: start now, or when it comes.
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
