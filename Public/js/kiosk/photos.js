// The server's photo screen: each photo goes to the server's visit and is held on the tablet under
// the visit's id too (kiosk-outbox.js). With no answer from the server it still counts (held); a
// refusal does not.
import { uuid } from '../core/ids.js';
import { grabFrame } from '../core/camera.js';
import { fixOf, watchFix } from '../core/location.js';
import { photoForm } from '../core/photo-form.js';
import { kiosk, nothing, onCleanUp, outbox, releaseCamera, startCamera, thumbnail } from './visit.js';

// The parts of a photo screen (the server's, and the offline shell's photo step).
export function photoScreen() {
  const ids = { main: 'main', video: 'kiosk-camera', shutter: 'kiosk-shoot', next: 'kiosk-next', status: 'kiosk-status',
    thumbs: 'kiosk-thumbs' };
  const parts = {};
  Object.keys(ids).forEach(function (key) { parts[key] = document.getElementById(ids[key]); });
  return parts;
}

// The video's frame as a JPEG for done(blob, canvas); said while the camera shows nothing yet.
export function shoot(video, status, main, done) {
  const grabbing = grabFrame(video, 0.85, done);
  if (!grabbing) status.textContent = main.getAttribute('data-no-camera');
  return grabbing;
}

export function photos() {
  const { main, video, shutter, next, status, thumbs } = photoScreen();
  const visit = main.getAttribute('data-visit');
  const radius = parseFloat(main.getAttribute('data-radius')) || 100;
  let count = parseInt(main.getAttribute('data-count'), 10) || 0;
  let fix = null;
  let warned = false;
  function siteLocation() {
    fix = null;
    if (!warned) { status.textContent = main.getAttribute('data-site-location'); warned = true; }
  }
  onCleanUp(watchFix(function (position) {
    // A fix worse than the site's radius is no better than the site's own location.
    if (position.coords.accuracy > radius) { siteLocation(); return; }
    fix = fixOf(position);
  }, siteLocation, { enableHighAccuracy: true, maximumAge: 10000, timeout: 30000 }));
  startCamera(video, status, main);
  function shown(source, label) {
    thumbnail(thumbs, label, source);
    status.textContent = label;
    next.removeAttribute('aria-disabled');
  }
  shutter.addEventListener('click', function () {
    const grabbing = shoot(video, status, main, function (blob, canvas) {
      const id = uuid();
      const takenAt = fix ? fix.time : Date.now();
      const held = outbox() && visit
        ? outbox().hold(visit, { id: id, blob: blob, fix: fix, takenAt: takenAt }).then(function () {
          return true;
        }, function () { return false; })
        : Promise.resolve(false);
      fetch('/kiosk/photos', {
        method: 'POST', body: photoForm({ id: id, blob: blob, fix: fix, time: fix ? fix.time : null }),
        credentials: 'same-origin', headers: { 'X-CSRF-Token': kiosk.csrf, 'Accept': 'application/json' }
      }).then(function (response) {
        if (!response.ok) {
          // Refused by the server (too large, not enrolled…): not held either.
          return held.then(function () {
            return outbox() && visit ? outbox().unhold(visit, id).catch(nothing) : null;
          }).then(function () { status.textContent = main.getAttribute('data-failed'); });
        }
        return response.json().then(function (answer) {
          count = answer.count;
          shown(canvas.toDataURL('image/jpeg', 0.5), main.getAttribute('data-saved') + ' ' + count);
          return held.then(function (kept) {
            return kept ? outbox().markSent(visit, id).catch(nothing) : null;
          });
        });
      }, function () {
        // No answer: the photo is on the tablet, and goes with the report.
        return held.then(function (kept) {
          if (!kept) { status.textContent = main.getAttribute('data-failed'); return; }
          count += 1;
          shown(canvas.toDataURL('image/jpeg', 0.5), main.getAttribute('data-saved') + ' ' + count);
        });
      }).catch(function () {
        status.textContent = main.getAttribute('data-failed');
      }).then(function () { shutter.disabled = false; });
    });
    if (grabbing) shutter.disabled = true;
  });
  window.addEventListener('pagehide', releaseCamera);
}
