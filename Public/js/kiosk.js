// Kiosk mode (issue 11): the visitor's photos, the "Still there?" prompt and the reset that leaves nothing
// of the visitor behind (KIO-04): the server's draft, this page, the browser's storage, and the history
// (every kiosk page is no-store; a page brought back from the back-forward cache reloads from the server,
// which sends a tablet without a visit to the attract screen). Off the network (docs/KIOSK.md): the
// photos a visitor takes are held on the tablet too (kiosk-outbox.js) so that Submit, sent by fetch, can
// keep the report there when the server does not answer; the language buttons then switch to the
// offline shell in the other language; a held report the server refuses for good is counted on the
// attract screen, and a revoked tablet stops sending and shows the server's "not enrolled" page.
(function () {
  'use strict';
  var body;
  var step;
  var csrf;
  var stream = null;
  // How long Submit waits for the server before the report is kept on the tablet.
  var SEND_TIMEOUT = 30000;
  // True while the form's Submit is under way (formStep): the idle watch waits for it.
  var submitting = false;

  // What a page's steps started (timers, listeners on the document), undone when the server's answer
  // to Submit replaces the page in place.
  var cleanups = [];
  function later(work, ms) {
    var id = window.setTimeout(work, ms);
    cleanups.push(function () { window.clearTimeout(id); });
  }
  function every(work, ms) {
    var id = window.setInterval(work, ms);
    cleanups.push(function () { window.clearInterval(id); });
  }
  function listen(target, name, work, options) {
    target.addEventListener(name, work, options);
    cleanups.push(function () { target.removeEventListener(name, work, options); });
  }
  function cleanUp() {
    var list = cleanups;
    cleanups = [];
    list.forEach(function (undo) { undo(); });
  }
  function outbox() { return window.HARKioskOutbox || null; }
  function nothing() {}

  window.addEventListener('pageshow', function (event) {
    if (event.persisted) window.location.reload();
  });

  // What the reset spares: the kiosk's outbox of finished reports (no screen reads it), the kiosk's
  // service worker and its shell cache (the offline screens, nothing of a visitor).
  var OUTBOX_DB = 'har-kiosk-outbox';
  function spared(kind, name) {
    if (kind === 'db') return name === OUTBOX_DB;
    if (kind === 'cache') return name.indexOf('har-kiosk-shell-') === 0;
    return /\/kiosk$/.test(name);
  }

  // Everything a page may have left in the browser: IndexedDB, Cache Storage, web storage, service workers.
  function wipeDevice() {
    var jobs = [];
    try { window.localStorage.clear(); } catch (e) { /* storage refused */ }
    try { window.sessionStorage.clear(); } catch (e) { /* storage refused */ }
    if (window.indexedDB && indexedDB.databases) {
      jobs.push(indexedDB.databases().then(function (list) {
        return Promise.all(list.filter(function (db) { return !spared('db', db.name); }).map(function (db) {
          return new Promise(function (resolve) {
            var request = indexedDB.deleteDatabase(db.name);
            request.onsuccess = request.onerror = request.onblocked = function () { resolve(); };
          });
        }));
      }).catch(function () {}));
    }
    if (window.caches) {
      jobs.push(caches.keys().then(function (keys) {
        return Promise.all(keys.filter(function (key) { return !spared('cache', key); }).map(function (key) {
          return caches.delete(key);
        }));
      }).catch(function () {}));
    }
    if (navigator.serviceWorker && navigator.serviceWorker.getRegistrations) {
      jobs.push(navigator.serviceWorker.getRegistrations().then(function (list) {
        return Promise.all(list.filter(function (registration) { return !spared('worker', registration.scope); })
          .map(function (registration) { return registration.unregister(); }));
      }).catch(function () {}));
    }
    return Promise.all(jobs);
  }

  function stopCamera() {
    if (stream) stream.getTracks().forEach(function (track) { track.stop(); });
    stream = null;
  }

  // The visitor walked away: the server forgets the report, the device forgets everything, and the
  // attract screen replaces this page in the history.
  function reset() {
    stopCamera();
    var main = document.getElementById('main');
    if (main) main.innerHTML = '';
    var told = fetch('/kiosk/reset', {
      method: 'POST', credentials: 'same-origin', keepalive: true,
      headers: { 'X-CSRF-Token': csrf, 'Accept': 'application/json' }
    }).catch(nothing);
    var dropped = outbox() ? outbox().dropOpen().catch(nothing) : Promise.resolve();
    Promise.all([told, wipeDevice(), dropped]).then(function () { window.location.replace('/kiosk'); });
  }

  function idleWatch() {
    var idle = parseInt(body.getAttribute('data-idle'), 10);
    var countdown = parseInt(body.getAttribute('data-countdown'), 10);
    var dialog = document.getElementById('kiosk-idle');
    if (!idle || !countdown || !dialog) return;
    var count = document.getElementById('kiosk-idle-count');
    var more = document.getElementById('kiosk-more-time');
    var idleTimer = null;
    var tick = null;
    var left = 0;
    cleanups.push(function () { window.clearTimeout(idleTimer); window.clearInterval(tick); });
    function show() {
      // A Submit under way (its held photos, then the report) is not cut short: the reset would drop
      // what the tablet holds. The watch looks again a full idle time later.
      if (submitting) { idleTimer = window.setTimeout(show, idle * 1000); return; }
      left = countdown;
      dialog.hidden = false;
      render();
      more.focus();
      tick = window.setInterval(function () {
        left -= 1;
        if (left <= 0) {
          window.clearInterval(tick);
          reset();
          return;
        }
        render();
      }, 1000);
    }
    function render() {
      count.textContent = count.getAttribute('data-template').replace('{seconds}', String(left));
    }
    function restart() {
      if (!dialog.hidden) return;
      window.clearTimeout(idleTimer);
      idleTimer = window.setTimeout(show, idle * 1000);
    }
    more.addEventListener('click', function () {
      window.clearInterval(tick);
      dialog.hidden = true;
      restart();
    });
    ['pointerdown', 'keydown', 'input', 'touchstart', 'scroll'].forEach(function (name) {
      listen(document, name, restart, { passive: true, capture: true });
    });
    restart();
  }

  function thumbnail(thumbs, label, source) {
    var item = document.createElement('li');
    var image = document.createElement('img');
    image.alt = label;
    image.src = source;
    item.appendChild(image);
    thumbs.appendChild(item);
  }

  function fixOf(position) {
    return position ? { latitude: position.coords.latitude, longitude: position.coords.longitude,
                        accuracy: position.coords.accuracy } : null;
  }

  // The back camera into the screen's video (kept in `stream` for stopCamera); a refusal is said.
  function startCamera(video, status, main) {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) return;
    navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      .then(function (media) { stream = media; video.srcObject = media; })
      .catch(function () { status.textContent = main.getAttribute('data-no-camera'); });
  }

  // The video's frame as a JPEG, handed to done(blob, canvas); false (and said) while the camera
  // shows nothing yet.
  function grabFrame(video, status, main, done) {
    if (!video.videoWidth) { status.textContent = main.getAttribute('data-no-camera'); return false; }
    var canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext('2d').drawImage(video, 0, 0);
    canvas.toBlob(function (blob) { done(blob, canvas); }, 'image/jpeg', 0.85);
    return true;
  }

  // The server's photo screen: each photo goes to the server's visit and is held on the tablet under
  // the visit's id too. With no answer from the server it still counts (held); a refusal does not.
  function photos() {
    var main = document.getElementById('main');
    var video = document.getElementById('kiosk-camera');
    var shoot = document.getElementById('kiosk-shoot');
    var next = document.getElementById('kiosk-next');
    var status = document.getElementById('kiosk-status');
    var thumbs = document.getElementById('kiosk-thumbs');
    var visit = main.getAttribute('data-visit');
    var radius = parseFloat(main.getAttribute('data-radius')) || 100;
    var count = parseInt(main.getAttribute('data-count'), 10) || 0;
    var fix = null;
    var warned = false;
    function siteLocation() {
      fix = null;
      if (!warned) { status.textContent = main.getAttribute('data-site-location'); warned = true; }
    }
    if (navigator.geolocation) {
      var watch = navigator.geolocation.watchPosition(function (position) {
        // A fix worse than the site's radius is no better than the site's own location.
        if (position.coords.accuracy > radius) { siteLocation(); return; }
        fix = position;
      }, siteLocation, { enableHighAccuracy: true, maximumAge: 10000, timeout: 30000 });
      cleanups.push(function () { navigator.geolocation.clearWatch(watch); });
    } else {
      siteLocation();
    }
    startCamera(video, status, main);
    function shown(source, label) {
      thumbnail(thumbs, label, source);
      status.textContent = label;
      next.removeAttribute('aria-disabled');
    }
    shoot.addEventListener('click', function () {
      var grabbing = grabFrame(video, status, main, function (blob, canvas) {
        var id = HARIds.uuid();
        var takenAt = fix ? fix.timestamp : Date.now();
        var held = outbox() && visit
          ? outbox().hold(visit, { id: id, blob: blob, fix: fixOf(fix), takenAt: takenAt }).then(function () {
            return true;
          }, function () { return false; })
          : Promise.resolve(false);
        var form = new FormData();
        form.append('photo_id', id);
        if (fix) {
          form.append('latitude', String(fix.coords.latitude));
          form.append('longitude', String(fix.coords.longitude));
          form.append('accuracy', String(fix.coords.accuracy));
          form.append('fix_time', String(fix.timestamp));
        }
        form.append('photo', blob, 'photo.jpg');
        fetch('/kiosk/photos', {
          method: 'POST', body: form, credentials: 'same-origin',
          headers: { 'X-CSRF-Token': csrf, 'Accept': 'application/json' }
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
        }).then(function () { shoot.disabled = false; });
      });
      if (grabbing) shoot.disabled = true;
    });
    window.addEventListener('pagehide', stopCamera);
  }

  function fieldsOf(form) {
    var fields = {};
    var complete = true;
    Array.prototype.forEach.call(form.elements, function (element) {
      if (!element.name || element.name.charAt(0) === '_' || element.name === 'submit_token') return;
      if (element.type === 'hidden' || element.tagName === 'BUTTON') return;
      fields[element.name] = element.value.trim();
      if (!fields[element.name]) complete = false;
    });
    return { fields: fields, complete: complete };
  }

  // The "will be sent" screen in place of the page's content (the offline receipt): no code, and
  // nothing of the report; back to the attract screen after the receipt's time or a tap.
  function showHeld() {
    cleanUp();
    var main = document.getElementById('main');
    var template = document.getElementById('kiosk-held-template');
    main.innerHTML = '';
    main.classList.add('kiosk-receipt');
    main.appendChild(template.content.cloneNode(true));
    var title = main.querySelector('h1');
    title.setAttribute('tabindex', '-1');
    title.focus();
    var seconds = parseInt(body.getAttribute('data-receipt-seconds'), 10) || 20;
    function back() { window.location.replace('/kiosk'); }
    later(back, seconds * 1000);
    document.getElementById('kiosk-done').addEventListener('click', back);
  }

  // The server's answer to Submit in place of this page (the receipt, or the form with its messages):
  // it is the answer to a POST, so the page is not loaded again (the receipt's secret is shown once).
  function replacePage(html) {
    var page = new DOMParser().parseFromString(html, 'text/html');
    if (!page.body || !page.body.hasAttribute('data-kiosk-step')) { window.location.replace('/kiosk'); return; }
    cleanUp();
    stopCamera();
    document.title = page.title;
    document.documentElement.lang = page.documentElement.lang || document.documentElement.lang;
    var meta = document.querySelector('meta[name="har-csrf"]');
    var fresh = page.querySelector('meta[name="har-csrf"]');
    if (meta && fresh) meta.setAttribute('content', fresh.getAttribute('content'));
    document.body.replaceWith(document.importNode(page.body, true));
    init();
  }

  // The server's form screen: Submit goes by fetch. No answer (or the server failing): the report is
  // kept on the tablet under the visit's id with this form's token, so that the outbox's later send is
  // the same submission (a POST that arrived but whose answer was lost is not doubled).
  function formStep() {
    var form = document.getElementById('kiosk-form');
    var main = document.getElementById('main');
    var button = document.getElementById('kiosk-submit');
    var error = document.getElementById('kiosk-form-problem');
    var visit = main.getAttribute('data-visit');
    var sending = false;
    function say(text) {
      error.textContent = text;
      error.hidden = !text;
    }
    function keep() {
      var answers = fieldsOf(form);
      if (!answers.complete || !outbox()) {
        sending = false;
        submitting = false;
        button.removeAttribute('aria-busy');
        say(main.getAttribute(outbox() ? 'data-incomplete' : 'data-failed'));
        return;
      }
      outbox().finish(visit, form.elements.submit_token.value, answers.fields).then(function () {
        showHeld();
        outbox().send();
      }, function () {
        sending = false;
        submitting = false;
        button.removeAttribute('aria-busy');
        say(main.getAttribute('data-failed'));
      });
    }
    // Photos held on the tablet whose upload got no answer on the photo screen (the server may never
    // have had them) are sent again first, by their ids (the server keeps each once): the receipt
    // drops what the tablet holds, so a report submitted without them would lose them. Resolves
    // false when one still cannot go (no answer within SEND_TIMEOUT for them all, the server failing
    // or busy, the visit gone there): the report is then kept on the tablet with all of them (keep),
    // and the device routes make the visit again if need be. One the server refuses for what it is
    // (too large, not an image, the report full) leaves, as on the photo screen.
    function sendHeldPhotos() {
      if (!outbox() || !visit) return Promise.resolve(true);
      function yes() { return true; }
      var abort = new AbortController();
      var timer = window.setTimeout(function () { abort.abort(); }, SEND_TIMEOUT);
      return outbox().openRecord().then(function (record) {
        var missing = record && record.id === visit
          ? record.photos.filter(function (photo) { return !photo.onServer; }) : [];
        var chain = Promise.resolve(true);
        missing.forEach(function (photo) {
          chain = chain.then(function (ok) {
            if (!ok) return false;
            return fetch('/kiosk/photos', {
              method: 'POST', body: outbox().photoForm(photo), credentials: 'same-origin', signal: abort.signal,
              headers: { 'X-CSRF-Token': csrf, 'Accept': 'application/json' }
            }).then(function (response) {
              if (response.ok) return outbox().markSent(visit, photo.id).then(yes, yes);
              if ([409, 413, 415].indexOf(response.status) >= 0) return outbox().unhold(visit, photo.id).then(yes, yes);
              return false;
            }, function () { return false; });
          });
        });
        return chain;
      }, yes).then(function (allSent) {
        window.clearTimeout(timer);
        return allSent;
      });
    }
    listen(form, 'submit', function (event) {
      if (!window.fetch || !window.URLSearchParams || !window.AbortController || !window.DOMParser) return;
      event.preventDefault();
      if (sending) return;
      sending = true;
      submitting = true;
      say('');
      button.setAttribute('aria-busy', 'true');
      sendHeldPhotos().then(function (allSent) {
        if (allSent) submitOnline(); else keep();
      });
    });
    function submitOnline() {
      var abort = new AbortController();
      var timer = window.setTimeout(function () { abort.abort(); }, SEND_TIMEOUT);
      fetch(form.action, {
        method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(form)),
        headers: { 'Accept': 'text/html' }, signal: abort.signal
      }).then(function (response) {
        if (response.status >= 500) throw new Error(String(response.status));
        if (response.redirected) return { url: response.url };
        return response.text().then(function (html) { return { html: html, status: response.status }; });
      }).then(function (answer) {
        window.clearTimeout(timer);
        if (answer.url) { window.location.replace(answer.url); return; }
        replacePage(answer.html);
      }, function () {
        window.clearTimeout(timer);
        keep();
      });
    }
  }

  function receipt() {
    var seconds = parseInt(body.getAttribute('data-receipt-seconds'), 10) || 20;
    function back() { window.location.replace('/kiosk'); }
    later(back, seconds * 1000);
    // The QR code's link carries the claim secret: it leaves the screen well before the receipt does,
    // so the next visitor does not find it there.
    var qrSeconds = parseInt(body.getAttribute('data-qr-seconds'), 10) || 8;
    later(function () {
      var qr = document.getElementById('kiosk-qr');
      if (qr) qr.remove();
      var gone = document.getElementById('kiosk-qr-gone');
      if (gone) gone.hidden = false;
    }, qrSeconds * 1000);
    listen(document, 'pointerdown', back);
    // The report reached the server: nothing of it stays on the tablet.
    if (outbox()) outbox().dropOpen().catch(nothing);
  }

  // The staff's count on the attract screen: held reports the server refused for good (numbers only),
  // with "try again" for when the cause is mended (the kiosk's account linked again, say).
  function refusedNotice() {
    var notice = document.getElementById('kiosk-refused');
    if (!notice || !outbox()) return;
    var text = document.getElementById('kiosk-refused-count');
    outbox().counts().then(function (counts) {
      notice.hidden = counts.refused === 0;
      text.textContent = text.getAttribute('data-template').replace('{count}', String(counts.refused));
    }, nothing);
  }
  function wireRefusedNotice() {
    var retryButton = document.getElementById('kiosk-refused-retry');
    if (!retryButton || !outbox()) return;
    retryButton.addEventListener('click', function () {
      outbox().retryRefused().then(function () { return outbox().send(); }).then(refusedNotice, refusedNotice);
    });
  }

  // The server's Start and Start again are forms: by fetch, so that with no answer the tablet goes on
  // in the offline shell (a new visit, or the attract screen after the reset) instead of an error page.
  function serverForms() {
    var start = document.getElementById('kiosk-start');
    var startForm = start && start.form;
    if (startForm && window.fetch && window.URLSearchParams) {
      listen(startForm, 'submit', function (event) {
        event.preventDefault();
        fetch(startForm.action, {
          method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(startForm)),
          redirect: 'manual'
        }).then(function (response) {
          if (response.type === 'opaqueredirect') window.location.replace('/kiosk/photos');
          else HTMLFormElement.prototype.submit.call(startForm);
        }, function () { window.location.replace('/kiosk/offline?step=start'); });
      });
    }
    Array.prototype.forEach.call(document.querySelectorAll('form.kiosk-cancel'), function (form) {
      listen(form, 'submit', function (event) {
        event.preventDefault();
        reset();
      });
    });
  }

  // The revoked tablet: its shell and service worker go (no more reports it could never send), the
  // held reports stay in the outbox; the server's "not enrolled" page follows.
  function revoked() {
    var jobs = [];
    if (navigator.serviceWorker && navigator.serviceWorker.getRegistrations) {
      jobs.push(navigator.serviceWorker.getRegistrations().then(function (list) {
        return Promise.all(list.filter(function (registration) { return /\/kiosk$/.test(registration.scope); })
          .map(function (registration) { return registration.unregister(); }));
      }).catch(nothing));
    }
    if (window.caches) {
      jobs.push(caches.keys().then(function (keys) {
        return Promise.all(keys.filter(function (key) { return key.indexOf('har-kiosk-shell-') === 0; })
          .map(function (key) { return caches.delete(key); }));
      }).catch(nothing));
    }
    return Promise.all(jobs);
  }

  // The language buttons. On the server's screens: the server's switch, by fetch; no answer, the
  // offline shell in that language at the same step (what the visitor typed kept with their photos).
  // In the shell: the shell in that language (`?lang=`: the service worker keeps one per language).
  function languages(current, keepTyped) {
    var buttons = document.querySelectorAll('.kiosk-languages button[name="lang"]');
    Array.prototype.forEach.call(buttons, function (button) {
      listen(button, 'click', function (event) {
        if (!window.fetch || !window.URLSearchParams) return;
        event.preventDefault();
        var code = button.value;
        function offline() {
          var kept = keepTyped ? keepTyped().catch(nothing) : Promise.resolve();
          kept.then(function () {
            window.location.replace('/kiosk/offline?lang=' + encodeURIComponent(code) + '&step=' + current());
          });
        }
        if (step === 'offline') { offline(); return; }
        var data = new URLSearchParams();
        data.append('_csrf', csrf);
        data.append('lang', code);
        data.append('back', window.location.pathname);
        fetch('/kiosk/lang', { method: 'POST', credentials: 'same-origin', body: data, redirect: 'manual' })
          .then(function () { window.location.replace(window.location.pathname); }, offline);
      });
    });
  }

  // The offline shell (served by the kiosk's service worker when the server cannot be reached). The
  // visitor's photos are held on the tablet as they are taken (an open record: the idle reset drops
  // it), so that a visit begun on the server's screens goes on here (at /kiosk/photos or /kiosk/form,
  // or after a language switch) and nothing is lost; finished, the report waits in the outbox.
  function offline() {
    var main = document.getElementById('main');
    var sections = ['attract', 'photos', 'form', 'receipt'];
    var video = document.getElementById('kiosk-camera');
    var shoot = document.getElementById('kiosk-shoot');
    var next = document.getElementById('kiosk-next');
    var status = document.getElementById('kiosk-status');
    var thumbs = document.getElementById('kiosk-thumbs');
    var cancel = document.getElementById('offline-cancel');
    var form = document.getElementById('kiosk-form');
    var params = new URLSearchParams(window.location.search);
    var lang = document.documentElement.lang;
    var shownAs = 'attract';
    var visit = null;
    var taken = [];
    var fix = null;
    var home = params.get('lang') ? '/kiosk?lang=' + encodeURIComponent(lang) : '/kiosk';
    function show(name) {
      shownAs = name;
      sections.forEach(function (section) {
        document.getElementById('offline-' + section).hidden = section !== name;
      });
      cancel.hidden = name === 'attract' || name === 'receipt';
      body.classList.toggle('kiosk-attract', name === 'attract');
    }
    function camera() {
      if (navigator.geolocation) {
        navigator.geolocation.getCurrentPosition(function (position) {
          fix = fixOf(position);
        }, function () { fix = null; }, { enableHighAccuracy: true, maximumAge: 10000, timeout: 30000 });
      }
      startCamera(video, status, main);
    }
    function showTaken() {
      thumbs.innerHTML = '';
      taken.forEach(function (photo, index) {
        thumbnail(thumbs, main.getAttribute('data-saved') + ' ' + (index + 1), URL.createObjectURL(photo.blob));
      });
      if (taken.length) {
        status.textContent = main.getAttribute('data-saved') + ' ' + taken.length;
        next.removeAttribute('aria-disabled');
      }
    }
    function photosStep() {
      show('photos');
      camera();
    }
    document.getElementById('kiosk-start').addEventListener('click', function () {
      visit = HARIds.uuid();
      taken = [];
      photosStep();
    });
    shoot.addEventListener('click', function () {
      grabFrame(video, status, main, function (blob, canvas) {
        var photo = { id: HARIds.uuid(), blob: blob, fix: fix, takenAt: Date.now() };
        taken.push(photo);
        if (outbox()) outbox().hold(visit, photo).catch(nothing);
        thumbnail(thumbs, main.getAttribute('data-saved') + ' ' + taken.length, canvas.toDataURL('image/jpeg', 0.5));
        status.textContent = main.getAttribute('data-saved') + ' ' + taken.length;
        next.removeAttribute('aria-disabled');
      });
    });
    next.addEventListener('click', function () {
      if (!taken.length) return;
      stopCamera();
      show('form');
    });
    cancel.addEventListener('click', reset);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var answers = fieldsOf(form);
      var complete = answers.complete && taken.length > 0;
      document.getElementById('offline-form-error').hidden = complete;
      if (!complete) return;
      HARKioskOutbox.finish(visit, HARIds.token(), answers.fields, taken).then(function () {
        taken = [];
        visit = null;
        form.reset();
        thumbs.innerHTML = '';
        show('receipt');
        var seconds = parseInt(body.getAttribute('data-receipt-seconds'), 10) || 20;
        window.setTimeout(function () { window.location.replace(home); }, seconds * 1000);
        HARKioskOutbox.send();
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
    var wanted = params.get('step') ||
      ({ '/kiosk/photos': 'photos', '/kiosk/form': 'form' })[window.location.pathname] || 'attract';
    var resumed = (wanted === 'photos' || wanted === 'form') && outbox()
      ? outbox().openRecord().catch(function () { return null; }) : Promise.resolve(null);
    resumed.then(function (record) {
      if (wanted === 'start') {
        visit = HARIds.uuid();
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
    var pinned = window.location.pathname === '/kiosk/offline' && !window.location.search;
    var stopped = false;
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
          return HARKioskOutbox.send().then(function () {
            refusedNotice();
            if (pinned || shownAs !== 'attract') return;
            // Shown in place of a kiosk screen (not opened by its own address): the server's screens
            // return once nobody is in the middle of a report, in the language chosen here.
            var told = Promise.resolve();
            if (params.get('lang')) {
              var data = new URLSearchParams();
              data.append('_csrf', csrf);
              data.append('lang', lang);
              data.append('back', '/kiosk');
              told = fetch('/kiosk/lang', { method: 'POST', credentials: 'same-origin', body: data, redirect: 'manual' })
                .catch(nothing);
            }
            return told.then(function () { window.location.replace('/kiosk'); });
          });
        }).catch(nothing);
    }
    window.addEventListener('online', retry);
    window.setInterval(retry, 15000);
    retry();
  }

  function init() {
    body = document.body;
    submitting = false;
    step = body.getAttribute('data-kiosk-step') || '';
    var csrfMeta = document.querySelector('meta[name="har-csrf"]');
    csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
    if (step === 'attract') {
      wireRefusedNotice();
      // Nobody is in the middle of a report: an unfinished visit held on the tablet goes too.
      var dropped = outbox() ? outbox().dropOpen().catch(nothing) : Promise.resolve();
      Promise.all([wipeDevice(), dropped]).then(function () {
        if (navigator.serviceWorker) {
          navigator.serviceWorker.register('/kiosk/sw.js', { scope: '/kiosk' }).catch(nothing);
        }
        refusedNotice();
        if (outbox()) outbox().send().then(refusedNotice, nothing);
      });
    }
    if (step === 'offline') offline();
    if (step === 'photos') photos();
    if (step === 'form') formStep();
    if (step === 'receipt') receipt();
    idleWatch();
    serverForms();
    if (step === 'photos' || step === 'form') {
      languages(function () { return step; }, step === 'form' ? function () {
        var visit = document.getElementById('main').getAttribute('data-visit');
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

  init();
}());
