// Kiosk mode, loaded as an ES module on every kiosk screen: the body's data-kiosk-step says which
// screen this is, and one module each does its part:
//   visit.js    the page's state, the camera, and the reset that leaves nothing of the visitor (KIO-04)
//   idle.js     "Still there?" and its countdown
//   photos.js   the server's photo screen (each photo to the server, and held on the tablet)
//   form.js     the server's form screen (Submit by fetch; kept on the tablet when there is no answer)
//   screens.js  the receipt, the staff's count of refused reports, Start, the language buttons
//   offline.js  the offline shell the kiosk's service worker shows when the server cannot be reached
// Every kiosk page is no-store; a page brought back from the back-forward cache reloads from the
// server, which sends a tablet without a visit to the attract screen. docs/KIOSK.md says more.
import { fieldsOf, kiosk, listen, nothing, outbox, wipeDevice } from './visit.js';
import { idleWatch } from './idle.js';
import { photos } from './photos.js';
import { formStep } from './form.js';
import { languages, receipt, refusedNotice, serverForms, wireRefusedNotice } from './screens.js';
import { offline } from './offline.js';

window.addEventListener('pageshow', function (event) {
  if (event.persisted) window.location.reload();
});

function attract() {
  wireRefusedNotice();
  // Nobody is in the middle of a report: an unfinished visit held on the tablet goes too.
  const dropped = outbox() ? outbox().dropOpen().catch(nothing) : Promise.resolve();
  Promise.all([wipeDevice(), dropped]).then(function () {
    if (navigator.serviceWorker) {
      navigator.serviceWorker.register('/kiosk/sw.js', { scope: '/kiosk', type: 'module', updateViaCache: 'none' })
        .catch(nothing);
    }
    refusedNotice();
    if (outbox()) outbox().send().then(refusedNotice, nothing);
  });
}

function init() {
  const body = document.body;
  kiosk.body = body;
  kiosk.submitting = false;
  kiosk.step = body.getAttribute('data-kiosk-step') || '';
  const csrfMeta = document.querySelector('meta[name="har-csrf"]');
  kiosk.csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
  const step = kiosk.step;
  if (step === 'attract') attract();
  if (step === 'offline') offline();
  if (step === 'photos') photos();
  if (step === 'form') formStep();
  if (step === 'receipt') receipt();
  idleWatch();
  serverForms();
  if (step === 'photos' || step === 'form') {
    languages(function () { return step; }, step === 'form' ? function () {
      const visit = document.getElementById('main').getAttribute('data-visit');
      return outbox() && visit
        ? outbox().keepTyped(visit, fieldsOf(document.getElementById('kiosk-form')).fields) : Promise.resolve();
    } : null);
  } else if (step !== 'offline') {
    languages(function () { return 'attract'; }, null);
  }
  // Step links replace the page in the history: Back never walks through a visitor's screens.
  Array.prototype.forEach.call(document.querySelectorAll('a[href^="/kiosk"]'), function (link) {
    listen(link, 'click', function (event) {
      event.preventDefault();
      window.location.replace(link.getAttribute('href'));
    });
  });
}

kiosk.restart = init;
init();
