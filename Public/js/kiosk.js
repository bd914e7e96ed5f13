// Kiosk mode (issue 11): the visitor's photos, the "Still there?" prompt and the reset that leaves nothing
// of the visitor behind (KIO-04): the server's draft, this page, the browser's storage, and the history
// (every kiosk page is no-store; a page brought back from the back-forward cache reloads from the server,
// which sends a tablet without a visit to the attract screen).
(function () {
  'use strict';
  var body = document.body;
  var step = body.getAttribute('data-kiosk-step') || '';
  var csrfMeta = document.querySelector('meta[name="har-csrf"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
  var stream = null;

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
    }).catch(function () {});
    Promise.all([told, wipeDevice()]).then(function () { window.location.replace('/kiosk'); });
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
    function show() {
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
      document.addEventListener(name, restart, { passive: true, capture: true });
    });
    restart();
  }

  function photos() {
    var main = document.getElementById('main');
    var video = document.getElementById('kiosk-camera');
    var shoot = document.getElementById('kiosk-shoot');
    var next = document.getElementById('kiosk-next');
    var status = document.getElementById('kiosk-status');
    var thumbs = document.getElementById('kiosk-thumbs');
    var radius = parseFloat(main.getAttribute('data-radius')) || 100;
    var count = parseInt(main.getAttribute('data-count'), 10) || 0;
    var fix = null;
    var warned = false;
    function siteLocation() {
      fix = null;
      if (!warned) { status.textContent = main.getAttribute('data-site-location'); warned = true; }
    }
    if (navigator.geolocation) {
      navigator.geolocation.watchPosition(function (position) {
        // A fix worse than the site's radius is no better than the site's own location.
        if (position.coords.accuracy > radius) { siteLocation(); return; }
        fix = position;
      }, siteLocation, { enableHighAccuracy: true, maximumAge: 10000, timeout: 30000 });
    } else {
      siteLocation();
    }
    if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
      navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false })
        .then(function (media) { stream = media; video.srcObject = media; })
        .catch(function () { status.textContent = main.getAttribute('data-no-camera'); });
    }
    function uuid() {
      if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
      var bytes = crypto.getRandomValues(new Uint8Array(16));
      bytes[6] = (bytes[6] & 0x0f) | 0x40; bytes[8] = (bytes[8] & 0x3f) | 0x80;
      var hex = Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join('');
      return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
    }
    shoot.addEventListener('click', function () {
      if (!video.videoWidth) { status.textContent = main.getAttribute('data-no-camera'); return; }
      var canvas = document.createElement('canvas');
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext('2d').drawImage(video, 0, 0);
      shoot.disabled = true;
      canvas.toBlob(function (blob) {
        var form = new FormData();
        form.append('photo_id', uuid());
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
          if (!response.ok) throw new Error(String(response.status));
          return response.json();
        }).then(function (answer) {
          count = answer.count;
          var item = document.createElement('li');
          var image = document.createElement('img');
          image.alt = main.getAttribute('data-saved') + ' ' + count;
          image.src = canvas.toDataURL('image/jpeg', 0.5);
          item.appendChild(image);
          thumbs.appendChild(item);
          status.textContent = main.getAttribute('data-saved') + ' ' + count;
          next.removeAttribute('aria-disabled');
        }).catch(function () {
          status.textContent = main.getAttribute('data-failed');
        }).then(function () { shoot.disabled = false; });
      }, 'image/jpeg', 0.85);
    });
    window.addEventListener('pagehide', stopCamera);
  }

  function receipt() {
    var seconds = parseInt(body.getAttribute('data-receipt-seconds'), 10) || 20;
    function back() { window.location.replace('/kiosk'); }
    window.setTimeout(back, seconds * 1000);
    document.addEventListener('pointerdown', back);
  }

  // The offline shell (served by the kiosk's service worker when the server cannot be reached): the
  // visitor's report lives in this page's memory only, until it is finished and held in the outbox.
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
    var taken = [];
    var fix = null;
    function show(name) {
      sections.forEach(function (section) {
        document.getElementById('offline-' + section).hidden = section !== name;
      });
      cancel.hidden = name === 'attract' || name === 'receipt';
      body.classList.toggle('kiosk-attract', name === 'attract');
    }
    function camera() {
      if (navigator.geolocation) {
        navigator.geolocation.getCurrentPosition(function (position) {
          fix = { latitude: position.coords.latitude, longitude: position.coords.longitude,
                  accuracy: position.coords.accuracy };
        }, function () { fix = null; }, { enableHighAccuracy: true, maximumAge: 10000, timeout: 30000 });
      }
      if (navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
        navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false })
          .then(function (media) { stream = media; video.srcObject = media; })
          .catch(function () { status.textContent = main.getAttribute('data-no-camera'); });
      }
    }
    document.getElementById('kiosk-start').addEventListener('click', function () { show('photos'); camera(); });
    shoot.addEventListener('click', function () {
      if (!video.videoWidth) { status.textContent = main.getAttribute('data-no-camera'); return; }
      var canvas = document.createElement('canvas');
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext('2d').drawImage(video, 0, 0);
      canvas.toBlob(function (blob) {
        taken.push({ id: HARKioskOutbox.uuid(), blob: blob, fix: fix, takenAt: Date.now() });
        var item = document.createElement('li');
        var image = document.createElement('img');
        image.alt = main.getAttribute('data-saved') + ' ' + taken.length;
        image.src = canvas.toDataURL('image/jpeg', 0.5);
        item.appendChild(image);
        thumbs.appendChild(item);
        status.textContent = main.getAttribute('data-saved') + ' ' + taken.length;
        next.removeAttribute('aria-disabled');
      }, 'image/jpeg', 0.85);
    });
    next.addEventListener('click', function () {
      if (!taken.length) return;
      stopCamera();
      show('form');
    });
    cancel.addEventListener('click', reset);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var fields = {};
      var complete = taken.length > 0;
      Array.prototype.forEach.call(form.elements, function (element) {
        if (!element.name) return;
        fields[element.name] = element.value.trim();
        if (!fields[element.name]) complete = false;
      });
      document.getElementById('offline-form-error').hidden = complete;
      if (!complete) return;
      var record = { id: HARKioskOutbox.uuid(), token: HARKioskOutbox.token(), fields: fields, photos: taken,
                     createdAt: Date.now() };
      HARKioskOutbox.save(record).then(function () {
        taken = [];
        form.reset();
        thumbs.innerHTML = '';
        show('receipt');
        var seconds = parseInt(body.getAttribute('data-receipt-seconds'), 10) || 20;
        window.setTimeout(function () { window.location.replace('/kiosk'); }, seconds * 1000);
        HARKioskOutbox.send();
      }, function () {
        status.textContent = main.getAttribute('data-failed');
        document.getElementById('offline-form-error').hidden = false;
      });
    });
    document.getElementById('kiosk-done').addEventListener('click', function () {
      window.location.replace('/kiosk');
    });
    // The server may answer again at any time: the held reports go, and the next page is the server's.
    function retry() {
      fetch('/kiosk/device/session', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
        .then(function (response) {
          if (response.status !== 200) return;
          return HARKioskOutbox.send().then(function () {
            // Shown in place of a kiosk screen (not opened by its own address): the server's screens
            // return once nobody is in the middle of a report.
            if (window.location.pathname !== '/kiosk/offline' &&
                !document.getElementById('offline-attract').hidden) window.location.replace('/kiosk');
          });
        }).catch(function () {});
    }
    window.addEventListener('online', retry);
    window.setInterval(retry, 15000);
    retry();
  }

  if (step === 'attract') {
    wipeDevice().then(function () {
      if (navigator.serviceWorker) {
        navigator.serviceWorker.register('/kiosk/sw.js', { scope: '/kiosk' }).catch(function () {});
      }
      if (window.HARKioskOutbox) HARKioskOutbox.send();
    });
  }
  if (step === 'offline') offline();
  if (step === 'photos') photos();
  if (step === 'receipt') receipt();
  idleWatch();
  // Step links replace the page in the history: Back never walks through a visitor's screens.
  Array.prototype.forEach.call(document.querySelectorAll('a[href^="/kiosk"]'), function (link) {
    link.addEventListener('click', function (event) {
      event.preventDefault();
      window.location.replace(link.getAttribute('href'));
    });
  });
}());
