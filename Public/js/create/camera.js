// The camera (CRE-02/05/06): a live preview and a shutter; where the browser has no camera or the
// user denies it, the file input instead. Each picture or picked file is taken with the current fix.
import { state, t } from './page.js';
import { isFull } from './limit.js';
import { take } from './uploads.js';

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
    HARPhotos.say(t('create.cameraUnavailable'));
    state.camera = 'unavailable';
  }

  fileInput.addEventListener('change', function () {
    const files = Array.prototype.slice.call(fileInput.files || []);
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
      const played = video.play();
      if (played && played.catch) played.catch(function () {});
      cameraStatus.textContent = '';
      capture.disabled = false;
      state.camera = 'live';
    }, noCamera);
  }

  capture.addEventListener('click', function () {
    if (isFull()) { HARPhotos.say(t('photos.errors.full')); return; }
    if (!video.videoWidth) return;
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
    // CRE-06: the stream is untouched: the preview stays live for the next picture.
    canvas.toBlob(function (blob) { if (blob) take(blob, 'capture.jpg'); }, 'image/jpeg', 0.9);
  });
}
