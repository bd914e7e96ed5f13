// The offline shell (served by the kiosk's service worker when the server cannot be reached). The
// visitor's photos are held on the tablet as they are taken (an open record: the idle reset drops
// it), so that a visit begun on the server's screens goes on here (at /kiosk/photos or /kiosk/form,
// or after a language switch) and nothing is lost; finished, the report waits in the outbox. When the
// server answers again the held reports go, and the next page is the server's.
import { uuid, token } from '../core/ids.js';
import { fixOf } from '../core/location.js';
import { fieldsOf, kiosk, nothing, outbox, releaseCamera, reset, startCamera, thumbnail } from './visit.js';
import { photoScreen, shoot } from './photos.js';
import { languages, refusedNotice, revoked, switchLanguage, wireRefusedNotice } from './screens.js';

export function offline() {
  const body = kiosk.body;
  const { main, video, shutter, next, status, thumbs } = photoScreen();
  const sections = ['attract', 'photos', 'form', 'receipt'];
  const cancel = document.getElementById('offline-cancel');
  const form = document.getElementById('kiosk-form');
  const params = new URLSearchParams(window.location.search);
  const lang = document.documentElement.lang;
  const home = params.get('lang') ? '/kiosk?lang=' + encodeURIComponent(lang) : '/kiosk';
  let shownAs = 'attract';
  let visit = null;
  let taken = [];
  let fix = null;
  function show(name) {
    shownAs = name;
    sections.forEach(function (section) {
      document.getElementById('offline-' + section).hidden = section !== name;
    });
    cancel.hidden = name === 'attract' || name === 'receipt';
    body.classList.toggle('kiosk-attract', name === 'attract');
  }
  function saved(n) { return main.getAttribute('data-saved') + ' ' + n; }
  function showTaken() {
    thumbs.innerHTML = '';
    taken.forEach(function (photo, index) { thumbnail(thumbs, saved(index + 1), URL.createObjectURL(photo.blob)); });
    if (taken.length) {
      status.textContent = saved(taken.length);
      next.removeAttribute('aria-disabled');
    }
  }
  function photosStep() {
    show('photos');
    if (navigator.geolocation) {
      navigator.geolocation.getCurrentPosition(function (position) { fix = fixOf(position); },
        function () { fix = null; }, { enableHighAccuracy: true, maximumAge: 10000, timeout: 30000 });
    }
    startCamera(video, status, main);
  }
  document.getElementById('kiosk-start').addEventListener('click', function () {
    visit = uuid();
    taken = [];
    photosStep();
  });
  shutter.addEventListener('click', function () {
    shoot(video, status, main, function (blob, canvas) {
      const photo = { id: uuid(), blob: blob, fix: fix, takenAt: Date.now() };
      taken.push(photo);
      if (outbox()) outbox().hold(visit, photo).catch(nothing);
      thumbnail(thumbs, saved(taken.length), canvas.toDataURL('image/jpeg', 0.5));
      status.textContent = saved(taken.length);
      next.removeAttribute('aria-disabled');
    });
  });
  next.addEventListener('click', function () {
    if (!taken.length) return;
    releaseCamera();
    show('form');
  });
  cancel.addEventListener('click', reset);
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    const answers = fieldsOf(form);
    const complete = answers.complete && taken.length > 0;
    document.getElementById('offline-form-error').hidden = complete;
    if (!complete) return;
    outbox().finish(visit, token(), answers.fields, taken).then(function () {
      taken = [];
      visit = null;
      form.reset();
      thumbs.innerHTML = '';
      show('receipt');
      const seconds = parseInt(body.getAttribute('data-receipt-seconds'), 10) || 20;
      window.setTimeout(function () { window.location.replace(home); }, seconds * 1000);
      outbox().send();
    }, function () {
      status.textContent = main.getAttribute('data-failed');
      document.getElementById('offline-form-error').hidden = false;
    });
  });
  document.getElementById('kiosk-done').addEventListener('click', function () {
    window.location.replace(home);
  });
  languages(function () { return shownAs; }, function () {
    return visit && shownAs === 'form' && outbox()
      ? outbox().keepTyped(visit, fieldsOf(form).fields) : Promise.resolve();
  });
  wireRefusedNotice();

  // Where the shell starts: a visit the tablet holds goes on at the step asked (a server's screen the
  // service worker answered, or a language switch); Start pressed on the server's attract screen with
  // no answer begins one; otherwise the attract screen, and any unfinished visit goes (nobody is in
  // the middle of it).
  const wanted = params.get('step') ||
    ({ '/kiosk/photos': 'photos', '/kiosk/form': 'form' })[window.location.pathname] || 'attract';
  const resumed = (wanted === 'photos' || wanted === 'form') && outbox()
    ? outbox().openRecord().catch(function () { return null; }) : Promise.resolve(null);
  resumed.then(function (record) {
    if (wanted === 'start') {
      visit = uuid();
      photosStep();
      return;
    }
    if (!record) {
      show('attract');
      if (outbox()) outbox().dropOpen().then(refusedNotice, refusedNotice);
      return;
    }
    visit = record.id;
    taken = record.photos;
    showTaken();
    Object.keys(record.typed || {}).forEach(function (name) {
      if (form.elements[name] && record.typed[name]) form.elements[name].value = record.typed[name];
    });
    if (wanted === 'form' && taken.length) show('form');
    else photosStep();
  });

  // The server may answer again at any time: the held reports go, and the next page is the server's
  // (in the language chosen here). A revoked tablet stops: the server's "not enrolled" page.
  const pinned = window.location.pathname === '/kiosk/offline' && !window.location.search;
  let stopped = false;
  function retry() {
    if (stopped) return;
    fetch('/kiosk/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
      .then(function (response) {
        if (response.status === 401 || response.status === 403) {
          stopped = true;
          return revoked().then(function () {
            if (shownAs === 'attract' || shownAs === 'receipt') window.location.replace('/kiosk');
          });
        }
        if (response.status !== 200) return;
        return outbox().send().then(function () {
          refusedNotice();
          if (pinned || shownAs !== 'attract') return;
          // Shown in place of a kiosk screen (not opened by its own address): the server's screens
          // return once nobody is in the middle of a report, in the language chosen here.
          const told = params.get('lang') ? switchLanguage(lang, '/kiosk').catch(nothing) : Promise.resolve();
          return told.then(function () { window.location.replace('/kiosk'); });
        });
      }).catch(nothing);
  }
  window.addEventListener('online', retry);
  window.setInterval(retry, 15000);
  retry();
}
