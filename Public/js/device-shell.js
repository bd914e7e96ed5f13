// The app shell's pages (DeviceShellScreen, Templates/device.mustache), shown by the service worker
// when the server cannot be reached (OFF-01/02/05): take photos with the fix of the moment, fill the
// form, submit, all into the device's outbox (outbox.js) for the user last signed in on this browser;
// the list (device-sync.js) shows what waits. Storage errors are said in the page's language; the
// first report kept offline asks the browser to keep the device's storage (navigator.storage.persist).
// An ES module: the camera and the fix are the shared ones (core/); current() is the report being made
// (null until it is read back), for the tests.
import * as outbox from './outbox.js';
import { owner as deviceOwner, t } from './device-user.js';
import { hasCamera, grabFrame, openCamera } from './core/camera.js';
import { fixOf, watchFix } from './core/location.js';
import { keptNear, renderChoice, wireChoice } from './core/sites.js';

var words = {};
var fix = null;
var record = null;

function shellWord(key) { return words[key] || key; }

function say(text) {
  var box = document.getElementById('photo-message');
  if (box) box.textContent = text;
}

function storageError(error) {
  var box = document.getElementById('outbox-error');
  if (!box) return;
  box.textContent = error && error.kind === 'quota' ? t('quota') : t('writeFailed');
  box.setAttribute('data-kind', 'storage');
  box.hidden = false;
}

function saveRecord() {
  return outbox.save(record).then(function () {
    if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(function () {});
  }, function (error) { storageError(error); throw error; });
}

function tile(photo, index, removable) {
  var item = document.createElement('li');
  item.className = 'photo-item';
  item.setAttribute('data-id', photo.id);
  var image = document.createElement('img');
  image.className = 'photo-thumb';
  image.width = 72;
  image.height = 72;
  image.alt = (shellWord('photos.photoAlt')).replace('{n}', String(index + 1));
  image.src = URL.createObjectURL(photo.blob);
  item.appendChild(image);
  if (removable) {
    var remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'photo-remove';
    remove.setAttribute('aria-label', shellWord('photos.remove').replace('{n}', String(index + 1)));
    remove.textContent = '×';
    remove.addEventListener('click', function () {
      record.photos = record.photos.filter(function (p) { return p.id !== photo.id; });
      saveRecord().then(showPhotos, function () {});
    });
    item.appendChild(remove);
  }
  return item;
}

function showPhotos() {
  var strip = document.getElementById('device-photos');
  if (!strip) return;
  strip.textContent = '';
  record.photos.forEach(function (photo, index) { strip.appendChild(tile(photo, index, true)); });
}

// The limits the server applies (20 photos a report, counting those a report begun online has there
// already; the photo size), applied when a photo is taken, as on the creation page: a report made
// here is never one the server will refuse for good, with no way to take one photo out of it.
function refusal(blob) {
  var maxPhotos = parseInt(words['limits.maxPhotos'], 10) || 20;
  var maxBytes = parseInt(words['limits.maxFileBytes'], 10) || 0;
  if (record.photos.length + (record.serverPhotos || 0) >= maxPhotos) return shellWord('photos.errors.full');
  if (maxBytes && blob.size > maxBytes) return shellWord('photos.errors.tooLarge');
  return null;
}

function take(blob, name) {
  var refused = refusal(blob);
  if (refused) { say(refused); return Promise.resolve(); }
  var photo = { id: outbox.uuid(), blob: blob, name: name, fix: fix, takenAt: Date.now() };
  record.photos.push(photo);
  return saveRecord().then(function () {
    showPhotos();
    say(t('saved'));
  }, function () {
    record.photos.pop();
  });
}

function startLocation() {
  watchFix(function (position) { fix = fixOf(position); }, function () {});
}

function startCamera() {
  var capture = document.getElementById('capture');
  var video = document.getElementById('preview');
  var picker = document.getElementById('picker');
  var input = document.getElementById('file-input');
  input.addEventListener('change', function () {
    var files = Array.prototype.slice.call(input.files || []);
    files.reduce(function (chain, file) {
      return chain.then(function () { return take(file, file.name || 'photo'); });
    }, Promise.resolve()).then(function () { input.value = ''; });
  });
  function noCamera() {
    document.getElementById('camera').hidden = true;
    picker.hidden = false;
    say(t('cameraUnavailable'));
  }
  if (!hasCamera()) { noCamera(); return; }
  openCamera(video).then(function () { capture.disabled = false; }, noCamera);
  capture.addEventListener('click', function () {
    grabFrame(video, 0.9, function (blob) { take(blob, 'capture.jpg'); });
  });
}

// The register's sites kept on the device (SITE-02), nearest the photos' fixes: a pick fills the
// name, designation and grade and is kept with the report as site_id.
function offerSites(form) {
  var fieldset = document.getElementById('site-choice');
  if (!fieldset) return;
  var points = record.photos.map(function (photo) { return photo.fix; }).filter(Boolean);
  keptNear(points).then(function (nearest) { renderChoice(fieldset, nearest, record.fields.site_id); });
  wireChoice(fieldset, form, function (value) {
    record.fields.site_id = value;
    ['name', 'designation', 'grade'].forEach(function (name) { record.fields[name] = form.elements[name].value; });
    if (record.photos.length) saveRecord().catch(function () {});
  });
}

function startSubmit() {
  var form = document.getElementById('device-form');
  var fields = ['name', 'designation', 'condition', 'occupancy', 'priority_category', 'owner_type', 'grade'];
  fields.forEach(function (name) {
    var field = form.elements[name];
    if (field && record.fields[name]) field.value = record.fields[name];
    if (field) field.addEventListener('change', function () {
      record.fields[name] = field.value;
      if (record.photos.length) saveRecord().catch(function () {});
    });
  });
  offerSites(form);
  showPhotos();
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var nameField = form.elements.name;
    var nameError = document.getElementById('field-name-error');
    nameError.textContent = '';
    nameField.removeAttribute('aria-invalid');
    // A report begun online has photos on the server already (serverPhotos, create/offline.js).
    if (!record.photos.length && !record.serverPhotos) { say(t('noPhotos')); return; }
    if (!nameField.value.trim()) {
      nameError.textContent = shellWord('submit.errors.nameEmpty');
      nameField.setAttribute('aria-invalid', 'true');
      nameField.focus();
      return;
    }
    var missing = fields.filter(function (name) { return !form.elements[name].value; })[0];
    if (missing) { form.elements[missing].focus(); form.reportValidity(); return; }
    fields.forEach(function (name) { record.fields[name] = form.elements[name].value.trim(); });
    record.status = 'waiting';
    record.token = outbox.token();
    record.submittedAt = Date.now();
    saveRecord().then(function () {
      if (navigator.serviceWorker && navigator.serviceWorker.ready) {
        navigator.serviceWorker.ready.then(function (registration) {
          if (registration.sync) return registration.sync.register('har-outbox');
        }).catch(function () {});
      }
      window.location.assign('/reports');
    }, function () { record.status = 'open'; });
  });
}

function start() {
  var block = document.getElementById('shell-data');
  try { words = JSON.parse(block.textContent) || {}; } catch (e) { words = {}; }
  var mode = document.getElementById('main').getAttribute('data-mode');
  if (mode === 'list') return;
  var owner = deviceOwner();
  if (!owner) {
    var box = document.getElementById('outbox-error');
    box.textContent = t('signIn');
    box.hidden = false;
    return;
  }
  outbox.openReport(owner).then(function (open) {
    record = open;
    if (mode === 'new') { showPhotos(); startLocation(); startCamera(); }
    if (mode === 'submit') startSubmit();
  }, storageError);
}

export function current() { return record; }

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
