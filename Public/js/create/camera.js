// The camera (CRE-02/05/06): a live preview and a shutter; where the browser has no camera or the
// user denies it, the file input instead. Each picture or picked file is taken with the current fix.
import { state, t } from './page.js';
import { isFull } from './limit.js';
import { take } from './uploads.js';
import { BACK_CAMERA, grabFrame, hasCamera, openCamera } from '../core/camera.js';
import * as strip from '../photo-strip.js';

export function startCamera() {
  const capture = document.getElementById('capture');
  const video = document.getElementById('preview');
  const cameraStatus = document.getElementById('camera-status');
  const picker = document.getElementById('picker');
  const fileInput = document.getElementById('file-input');

  function noCamera() {
    document.getElementById('camera').hidden = true;
    picker.hidden = false;
    cameraStatus.textContent = '';
    strip.say(t('create.cameraUnavailable'));
    state.camera = 'unavailable';
  }

  fileInput.addEventListener('change', function () {
    const files = Array.prototype.slice.call(fileInput.files || []);
    files.forEach(function (file) { take(file, file.name || 'photo'); });
    state.uploads.then(function () { fileInput.value = ''; });
  });

  if (!hasCamera()) {
    noCamera();
  } else {
    const constraints = Object.assign({ aspectRatio: { ideal: 4 / 3 }, width: { ideal: 1920 } }, BACK_CAMERA);
    openCamera(video, constraints).then(function () {
      cameraStatus.textContent = '';
      capture.disabled = false;
      state.camera = 'live';
    }, noCamera);
  }

  capture.addEventListener('click', function () {
    if (isFull()) { strip.say(t('photos.errors.full')); return; }
    // CRE-06: the stream is untouched: the preview stays live for the next picture.
    grabFrame(video, 0.9, function (blob) { take(blob, 'capture.jpg'); });
  });
}
