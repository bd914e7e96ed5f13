// Photos to the server (CRE-05/07, CRE-11): each with the fix of the moment it was taken, one at a
// time in the order taken, retried with the same name after a lost answer (never a second copy), held
// on the device when they may not go (SET-03) or when the draft is gone, and kept in the device's
// outbox when the network is gone (offline.js).
import { labels, page, state, t } from './page.js';
import { isFull } from './limit.js';
import { hold, onCellularOnly, retryLater, settle } from './holding.js';
import { addMarker } from './map.js';
import { keepOnDevice, offline } from './offline.js';
import { uuid } from '../core/ids.js';
import { photoForm } from '../core/photo-form.js';
import * as strip from '../photo-strip.js';
import { csrf } from '../core/http.js';

let taken = 0;

// A photo just taken or picked, with the fix of that moment (CRE-05), not of when it is sent.
export function take(blob, name) {
  // Refused here rather than after waiting on the device for a wireless network.
  if (isFull()) { strip.say(t('photos.errors.full')); return Promise.resolve(); }
  if (blob.size > page.maxFileBytes) { strip.say(t('photos.errors.tooLarge')); return Promise.resolve(); }
  const now = Date.now();
  // Its name, made now: a retry after a lost answer is then the same photo on the server, never a copy.
  const photo = { id: uuid(), blob: blob, name: name, fix: state.fix, order: now * 1000 + (taken++ % 1000), heldAt: now };
  if (onCellularOnly()) { hold(photo); return Promise.resolve(); }
  // No network: the report moves to the device's outbox (offline.js) rather than wait in this page.
  if (offline()) return keepOnDevice(photo);
  return queue(photo);
}

// One upload at a time, in order: the row keeps the order the photos were taken or picked.
export function queue(photo) {
  state.uploads = state.uploads.then(function () { return upload(photo); });
  return state.uploads;
}

function upload(photo) {
  // The connection may have turned cellular while the photos before this one were sent.
  if (onCellularOnly()) { hold(photo); return Promise.resolve(); }
  // Full (photos added from another tab, or held ones joining this draft): a held photo stays held,
  // to go once the user removes one; one that was never held is refused, as capture would.
  if (strip.count() >= page.maxPhotos) {
    if (photo.stored) notSent(photo, t('photos.errors.full')); else { settle(photo); strip.say(t('photos.errors.full')); }
    return Promise.resolve();
  }
  if (photo.blob.size > page.maxFileBytes) { settle(photo); strip.say(t('photos.errors.tooLarge')); return Promise.resolve(); }
  if (!photo.stored && offline()) return keepOnDevice(photo);
  if (photo.tile) photo.tile.querySelector('.photo-remove').disabled = true;
  return send(photo, 0);
}

// Not sent, but not refused for what it is either (a server that kept failing or has no room, a
// session or a form token to renew, the day's quota, no connection for a held photo): the photo is
// kept on the device (OFF-02), waiting with the photos held for a wireless network, and goes at the
// next change of connection or visit of this page, in this draft or the user's next one. Resolves
// once it is written.
function notSent(photo, message) {
  return hold(photo, message);
}

function retry(photo, attempt) {
  return new Promise(function (resolve) { setTimeout(resolve, 1000 * (attempt + 1)); })
    .then(function () { return send(photo, attempt + 1); });
}

function send(photo, attempt) {
  const fix = photo.fix;
  const form = photoForm({ id: photo.id, blob: photo.blob, name: photo.name, fix: fix, time: fix ? fix.time : null });
  strip.say(t('create.uploading'));
  return fetch('/api/drafts/' + page.draft + '/photos', {
    method: 'POST', credentials: 'same-origin', body: form,
    headers: { 'Accept': 'application/json', 'X-CSRF-Token': csrf() }
  }).then(function (response) {
    return response.text().then(function (text) {
      let body = null;
      try { body = JSON.parse(text); } catch (e) { body = null; }
      return answered(photo, attempt, response.status, body);
    });
  }).catch(function () {
    // No answer at all: the network is gone (or the server with it). A photo held for a wireless
    // network stays held; any other is kept on the device's outbox once retrying is pointless.
    if (!photo.stored && (offline() || attempt >= 3)) return keepOnDevice(photo);
    if (attempt < 3) return retry(photo, attempt);
    return notSent(photo, t('photos.errors.failed'));
  });
}

// What the server's answer means for the photo.
function answered(photo, attempt, status, body) {
  // A lost answer or a busy server: the same photo again, a few times, then say so.
  if ((status >= 500 || status === 408) && attempt < 3) return retry(photo, attempt);
  if ((status === 201 || status === 200) && body) {
    settle(photo);
    // A replay of a photo the row already shows (restored after its answer was lost) adds nothing.
    if (!document.querySelector('#photo-strip .photo-item[data-id="' + body.id + '"]')) {
      strip.append(body, labels);
      addMarker(body, strip.count());
    }
    strip.say(strip.format(t('create.uploaded'), { n: strip.count() })
      + (body.locationSource === 'none' ? ' ' + t('photos.errors.noFix') : ''));
    return;
  }
  // The session ended: the photo is written to the device before the page leaves for the sign-in.
  if (status === 401 && body && body.redirect) {
    return notSent(photo, t('photos.errors.failed')).then(function () { window.location.assign(body.redirect); });
  }
  // Not now: tried again in a while (and at the next visit).
  if (status >= 500 || status === 408) {
    retryLater(30);
    return notSent(photo, body && body.message ? body.message : t('photos.errors.failed'));
  }
  // The form token refused (another tab signed in or out): this page's token will not do; the next
  // visit of the page, with a fresh one, sends it.
  if (status === 403) return notSent(photo, body && body.message ? body.message : t('photos.errors.failed'));
  // The day's quota, or the room one person's unsent photos may take: not before some are sent, or
  // tomorrow; tried again at the next visit.
  if (status === 429) return notSent(photo, body && body.message ? body.message : t('photos.errors.failed'));
  // The draft is gone (expired, or cancelled in another tab): the photo never joined a report, so
  // it is kept on the device and joins the next draft this user opens. The server's words say why.
  if (status === 404 || status === 410) {
    hold(photo);
    strip.say((body && body.message ? body.message + ' ' : '') + t('create.heldForNext'));
    return;
  }
  // Refused for good (too large, not an image, the report full): the server's words say why.
  settle(photo);
  if (status === 413) { strip.say(t('photos.errors.tooLarge')); return; }
  strip.say(body && body.message ? body.message : t('photos.errors.failed'));
}
