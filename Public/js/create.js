// Report creation (CRE-01..11, SET-01..03): camera preview and capture, the photo row, the map that
// follows the user, the GPS accuracy alert, and the file-input fallback when there is no camera.
// State for tests and debugging: window.HARCreate.
(function () {
  'use strict';

  var state = {
    fix: null,            // the most recent ACCEPTABLE fix (SET-01)
    lastGoodAt: null,     // when it came (ms)
    best: null,           // best accuracy seen since then, among fixes not good enough
    bestAt: null,
    startedAt: Date.now(),
    alerts: 0,            // sounds played (SET-02)
    alertShownAt: null,
    map: null, userMarker: null, markers: {}, uploads: Promise.resolve()
  };
  window.HARCreate = state;

  function data() {
    var block = document.getElementById('draft-data');
    try { return JSON.parse(block.textContent); } catch (e) { return { photos: [], messages: {}, maxPhotos: 20 }; }
  }

  document.addEventListener('DOMContentLoaded', function () {
    var page = data();
    var settings = HAR.settings();
    var t = function (key) { return page.messages[key] || key; };
    var labels = {
      alt: t('photos.photoAlt'), remove: t('photos.remove'), removed: t('photos.removed'), failed: t('photos.errors.failed'),
      waiting: t('create.heldPhoto')
    };
    HARPhotos.wire(labels);

    // ---- Map (CRE-02/03/04/07/09): works without tiles (offline): position and markers still show.
    var mapNode = document.getElementById('map');
    if (window.L && mapNode) {
      state.map = L.map(mapNode, { zoomControl: true, attributionControl: true }).setView([51.5, -0.12], 3);
      var tiles = L.tileLayer(page.tileURL, { maxZoom: 19, attribution: '© OpenStreetMap contributors' });
      tiles.on('tileerror', function () { /* offline or blocked: the map stays usable without them */ });
      tiles.addTo(state.map);
      page.photos.forEach(function (photo, index) { addMarker(photo, index + 1); });
    }

    function addMarker(photo, number) {
      if (!state.map || photo.latitude == null || photo.longitude == null) return;
      var marker = L.circleMarker([photo.latitude, photo.longitude], {
        radius: 8, color: '#FFFFFF', weight: 2, fillColor: '#8F2227', fillOpacity: 1
      }).addTo(state.map);
      marker.bindTooltip(HARPhotos.format(t('create.photoMarker'), { n: number }));
      if (marker.getElement && marker.getElement()) marker.getElement().classList.add('photo-marker');
      state.markers[photo.id] = marker;
    }

    HARPhotos.onRemoved(function (id) {
      var marker = state.markers[id];
      if (marker && state.map) state.map.removeLayer(marker);
      delete state.markers[id];
      updateFull();
    });

    // ---- Location (CRE-03/04, SET-01/02)
    var mapStatus = document.getElementById('map-status');
    var alertBox = document.getElementById('gps-alert');

    function onPosition(position) {
      var c = position.coords;
      var accuracy = typeof c.accuracy === 'number' ? c.accuracy : Infinity;
      if (accuracy > settings.gpsAccuracyMetres) {
        // SET-01: strictly worse than the setting: ignored, remembered only for the alert's words.
        if (state.best === null || accuracy < state.best) { state.best = accuracy; state.bestAt = Date.now(); }
        return;
      }
      state.fix = {
        latitude: c.latitude, longitude: c.longitude, accuracy: accuracy,
        altitude: typeof c.altitude === 'number' ? c.altitude : null, time: position.timestamp || Date.now()
      };
      state.lastGoodAt = Date.now();
      state.best = null;
      state.bestAt = null;
      hideAlert();
      if (mapStatus) mapStatus.textContent = '';
      if (state.map) {
        var here = [c.latitude, c.longitude];
        if (!state.userMarker) {
          state.userMarker = L.circleMarker(here, { radius: 9, color: '#FFFFFF', weight: 3, fillColor: '#208AD4', fillOpacity: 1 })
            .addTo(state.map).bindTooltip(t('create.youAreHere'));
        } else {
          state.userMarker.setLatLng(here);
        }
        // CRE-04: the map re-centres on every new position.
        state.map.setView(here, Math.max(state.map.getZoom(), 17), { animate: false });
      }
    }

    function hideAlert() {
      if (alertBox) { alertBox.hidden = true; alertBox.textContent = ''; }
      state.alertShownAt = null;
    }

    function beep() {
      state.alerts += 1;
      try {
        var Context = window.AudioContext || window.webkitAudioContext;
        if (!Context) return;
        var audio = state.audio || (state.audio = new Context());
        if (audio.state === 'suspended' && audio.resume) audio.resume();
        var oscillator = audio.createOscillator();
        var gain = audio.createGain();
        oscillator.type = 'square';
        oscillator.frequency.value = 880;
        gain.gain.value = 0.2;
        oscillator.connect(gain);
        gain.connect(audio.destination);
        oscillator.start();
        oscillator.stop(audio.currentTime + 0.4);
      } catch (e) { /* no sound here: the banner still shows */ }
    }

    // SET-02: no acceptable fix for the alert duration → a sound and a banner (repeated each period).
    setInterval(function () {
      var now = Date.now();
      var since = now - (state.lastGoodAt || state.startedAt);
      var period = settings.gpsAlertSeconds * 1000;
      if (since < period) return;
      if (state.alertShownAt === null || now - state.alertShownAt >= period) {
        state.alertShownAt = now;
        beep();
      }
      if (alertBox) {
        var seconds = Math.round(since / 1000);
        alertBox.textContent = state.best === null
          ? HARPhotos.format(t('create.gpsNone'), { seconds: seconds })
          : HARPhotos.format(t('create.gpsAlert'), {
            seconds: seconds, accuracy: Math.round(state.best), since: Math.round((now - state.bestAt) / 1000)
          });
        alertBox.hidden = false;
      }
    }, 1000);

    if (navigator.geolocation) {
      navigator.geolocation.watchPosition(onPosition, function () { /* denied or unavailable: the alert says so */ },
        { enableHighAccuracy: true, maximumAge: 0, timeout: 60000 });
    }

    // ---- SET-03: wireless only, and the browser says cellular: transfers wait; say so.
    // Where the browser cannot tell (no navigator.connection, or no type), transfers go.
    // A waiting photo is kept on the device (HARPhotos.held, IndexedDB) until the server has it: a
    // reload, a tab the phone discarded, or a visit to the submission page does not lose it, and this
    // page shows it again, waiting, when it opens on the same draft.
    var networkNotice = document.getElementById('network-notice');
    var held = HARPhotos.held;
    var waitingForWireless = [];
    var taken = 0;
    function onCellularOnly() {
      var connection = navigator.connection;
      return !!(settings.wirelessOnly && connection && connection.type === 'cellular');
    }
    function checkNetwork() {
      var holding = onCellularOnly();
      if (networkNotice) networkNotice.hidden = !holding;
      if (!holding) {
        // Back on a wireless network (or the setting is off): the photos held meanwhile go, in order.
        var waiting = waitingForWireless;
        waitingForWireless = [];
        waiting.forEach(queue);
      }
    }
    if (navigator.connection && navigator.connection.addEventListener) navigator.connection.addEventListener('change', checkNetwork);
    window.HARCreate.heldForWireless = function () { return waitingForWireless.length; };

    function hold(photo) {
      waitingForWireless.push(photo);
      if (!photo.tile) photo.tile = HARPhotos.appendWaiting(photo, labels);
      photo.tile.querySelector('.photo-remove').disabled = false;
      if (!photo.stored) {
        photo.stored = true;
        held.put({
          id: photo.id, draft: page.draft, owner: page.owner, order: photo.order, heldAt: photo.heldAt,
          blob: photo.blob, name: photo.name, fix: photo.fix
        }).then(function (kept) {
          // The device refused (storage full, a private window): it waits in this page only. Say so.
          if (kept) return;
          photo.stored = false;
          HARPhotos.say(t('create.heldNotKept'));
        });
      }
      HARPhotos.say(t('create.cellularWaiting'));
    }

    // The photo is done with (the server has it, or refused it for good): its waiting tile and its copy
    // on the device go.
    function settle(photo) {
      if (photo.tile) { HARPhotos.removeWaiting(photo.tile, labels); photo.tile = null; }
      if (photo.stored) { photo.stored = false; held.remove(photo.id); }
      updateFull();
    }

    // Held photos of this draft from an earlier visit, in capture order, before any taken meanwhile.
    // One the server already has (its answer was lost with the page) is only forgotten. This user's
    // photos held for other drafts (submitted, cancelled or expired while they waited) join this one.
    var adopted = 0;
    held.adopt(page.owner, page.draft, Date.now() - page.retentionSeconds * 1000).then(function (count) {
      adopted = count;
      return held.list(page.draft);
    }).then(function (records) {
      var before = document.querySelector('#photo-strip .photo-waiting');
      var restored = [];
      records.forEach(function (record) {
        if (document.querySelector('#photo-strip .photo-item[data-id="' + record.id + '"]')) { held.remove(record.id); return; }
        // Taken and held while the records were being read: already in the queue.
        if (waitingForWireless.some(function (photo) { return photo.id === record.id; })) return;
        var photo = {
          id: record.id, blob: record.blob, name: record.name, fix: record.fix, order: record.order,
          heldAt: record.heldAt, stored: true
        };
        photo.tile = HARPhotos.appendWaiting(photo, labels, before);
        restored.push(photo);
      });
      waitingForWireless = restored.concat(waitingForWireless);
      if (adopted) HARPhotos.say(HARPhotos.format(t(adopted === 1 ? 'create.heldAdoptedOne' : 'create.heldAdoptedMany'), { n: adopted }));
      else if (restored.length) HARPhotos.say(t('create.cellularWaiting'));
      state.restored = true;
      checkNetwork();
    });
    checkNetwork();

    // The X of a waiting photo: it leaves the queue and the device (one being sent settles by its answer).
    var stripNode = document.getElementById('photo-strip');
    stripNode.addEventListener('click', function (event) {
      var button = event.target.closest('.photo-waiting .photo-remove');
      if (!button) return;
      var id = button.closest('.photo-waiting').getAttribute('data-held-id');
      var photo = waitingForWireless.filter(function (p) { return p.id === id; })[0];
      if (!photo) return;
      waitingForWireless.splice(waitingForWireless.indexOf(photo), 1);
      settle(photo);
      HARPhotos.say(labels.removed);
    });

    // Continue with photos still waiting: they are not in the report yet. Say so and let the user stay.
    document.getElementById('continue').addEventListener('click', function (event) {
      var waiting = HARPhotos.waitingCount();
      if (!waiting) return;
      var words = { one: t('create.heldOne'), many: t('create.heldMany'), question: t('create.heldLeave') };
      if (!window.confirm(HARPhotos.heldWarning(waiting, words))) event.preventDefault();
    });

    // ---- Photos: limit (CRE-11) and upload (CRE-05/07)
    var capture = document.getElementById('capture');
    // Waiting photos count: they take their places in the report once sent.
    function isFull() { return HARPhotos.count() + HARPhotos.waitingCount() >= page.maxPhotos; }
    function updateFull() {
      if (!isFull() && document.getElementById('photo-message').textContent === t('photos.errors.full')) HARPhotos.say('');
    }

    // A name for each photo, made when it is taken: a retry after a lost answer is then the same photo
    // on the server, never a second copy.
    function photoID() {
      if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
      var bytes = crypto.getRandomValues(new Uint8Array(16));
      bytes[6] = (bytes[6] & 0x0f) | 0x40;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      var hex = Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join('');
      return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
    }

    // A photo just taken or picked, with the fix of that moment (CRE-05), not of when it is sent.
    function take(blob, name) {
      // Refused here rather than after waiting on the device for a wireless network.
      if (isFull()) { HARPhotos.say(t('photos.errors.full')); return Promise.resolve(); }
      if (blob.size > page.maxFileBytes) { HARPhotos.say(t('photos.errors.tooLarge')); return Promise.resolve(); }
      var now = Date.now();
      var photo = { id: photoID(), blob: blob, name: name, fix: state.fix, order: now * 1000 + (taken++ % 1000), heldAt: now };
      if (onCellularOnly()) { hold(photo); return Promise.resolve(); }
      return queue(photo);
    }

    // One upload at a time, in order: the row keeps the order the photos were taken or picked.
    function queue(photo) {
      state.uploads = state.uploads.then(function () { return upload(photo); });
      return state.uploads;
    }

    function upload(photo) {
      // The connection may have turned cellular while the photos before this one were sent.
      if (onCellularOnly()) { hold(photo); return Promise.resolve(); }
      // Full (photos added from another tab, or held ones joining this draft): a held photo stays held,
      // to go once the user removes one; one that was never held is refused, as capture would.
      if (HARPhotos.count() >= page.maxPhotos) {
        if (photo.stored) notSent(photo, t('photos.errors.full')); else { settle(photo); HARPhotos.say(t('photos.errors.full')); }
        return Promise.resolve();
      }
      if (photo.blob.size > page.maxFileBytes) { settle(photo); HARPhotos.say(t('photos.errors.tooLarge')); return Promise.resolve(); }
      if (photo.tile) photo.tile.querySelector('.photo-remove').disabled = true;
      return send(photo, 0);
    }

    // Not sent, but not refused either (no connection, a server that kept failing, a session to renew):
    // a held photo waits again, on the device, for the next change of connection or visit.
    function notSent(photo, message) {
      if (photo.stored) hold(photo);
      HARPhotos.say(message);
    }

    function send(photo, attempt) {
      var form = new FormData();
      form.append('photo_id', photo.id);
      form.append('photo', photo.blob, photo.name);
      var fix = photo.fix;
      if (fix) {
        form.append('latitude', String(fix.latitude));
        form.append('longitude', String(fix.longitude));
        form.append('accuracy', String(fix.accuracy));
        if (fix.altitude !== null) form.append('altitude', String(fix.altitude));
        form.append('fix_time', String(Math.round(fix.time)));
      }
      HARPhotos.say(t('create.uploading'));
      return fetch('/api/drafts/' + page.draft + '/photos', {
        method: 'POST', credentials: 'same-origin', body: form,
        headers: { 'Accept': 'application/json', 'X-CSRF-Token': HAR.csrf() }
      }).then(function (response) {
        return response.text().then(function (text) {
          var body = null;
          try { body = JSON.parse(text); } catch (e) { body = null; }
          // A lost answer or a busy server: the same photo again, a few times, then say so.
          if ((response.status >= 500 || response.status === 408) && attempt < 3) {
            return new Promise(function (resolve) { setTimeout(resolve, 1000 * (attempt + 1)); })
              .then(function () { return send(photo, attempt + 1); });
          }
          if ((response.status === 201 || response.status === 200) && body) {
            settle(photo);
            // A replay of a photo the row already shows (restored after its answer was lost) adds nothing.
            if (!document.querySelector('#photo-strip .photo-item[data-id="' + body.id + '"]')) {
              HARPhotos.append(body, labels);
              addMarker(body, HARPhotos.count());
            }
            HARPhotos.say(HARPhotos.format(t('create.uploaded'), { n: HARPhotos.count() })
              + (body.locationSource === 'none' ? ' ' + t('photos.errors.noFix') : ''));
            return;
          }
          if (response.status === 401 && body && body.redirect) {
            notSent(photo, t('photos.errors.failed'));
            window.location.assign(body.redirect);
            return;
          }
          if (response.status >= 500 || response.status === 408 || response.status === 403) {
            notSent(photo, body && body.message ? body.message : t('photos.errors.failed'));
            return;
          }
          // The draft is gone (expired, or cancelled in another tab): the photo never joined a report, so
          // it is kept on the device and joins the next draft this user opens. The server's words say why.
          if (response.status === 404 || response.status === 410) {
            hold(photo);
            HARPhotos.say((body && body.message ? body.message + ' ' : '') + t('create.heldForNext'));
            return;
          }
          // Refused for good (too large, not an image, the report full): the server's words say why.
          settle(photo);
          if (response.status === 413) { HARPhotos.say(t('photos.errors.tooLarge')); return; }
          HARPhotos.say(body && body.message ? body.message : t('photos.errors.failed'));
        });
      }).catch(function () {
        if (attempt < 3) {
          return new Promise(function (resolve) { setTimeout(resolve, 1000 * (attempt + 1)); })
            .then(function () { return send(photo, attempt + 1); });
        }
        notSent(photo, t('photos.errors.failed'));
      });
    }

    // ---- Camera (CRE-02/05/06), else the file input
    var video = document.getElementById('preview');
    var cameraStatus = document.getElementById('camera-status');
    var picker = document.getElementById('picker');
    var fileInput = document.getElementById('file-input');

    function noCamera() {
      document.getElementById('camera').hidden = true;
      picker.hidden = false;
      cameraStatus.textContent = '';
      HARPhotos.say(t('create.cameraUnavailable'));
      state.camera = 'unavailable';
    }

    fileInput.addEventListener('change', function () {
      var files = Array.prototype.slice.call(fileInput.files || []);
      files.forEach(function (file) { take(file, file.name || 'photo'); });
      state.uploads.then(function () { fileInput.value = ''; });
    });

    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      noCamera();
    } else {
      navigator.mediaDevices.getUserMedia({
        video: { facingMode: { ideal: 'environment' }, aspectRatio: { ideal: 4 / 3 }, width: { ideal: 1920 } }, audio: false
      }).then(function (stream) {
        video.srcObject = stream;
        // Give the camera back when leaving the page (its light goes off; the next page can open it).
        window.addEventListener('pagehide', function () { stream.getTracks().forEach(function (track) { track.stop(); }); });
        var played = video.play();
        if (played && played.catch) played.catch(function () {});
        cameraStatus.textContent = '';
        capture.disabled = false;
        state.camera = 'live';
      }, noCamera);
    }

    capture.addEventListener('click', function () {
      if (isFull()) { HARPhotos.say(t('photos.errors.full')); return; }
      if (!video.videoWidth) return;
      var canvas = document.createElement('canvas');
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      // CRE-06: the stream is untouched: the preview stays live for the next picture.
      canvas.toBlob(function (blob) { if (blob) take(blob, 'capture.jpg'); }, 'image/jpeg', 0.9);
    });
  });
})();
