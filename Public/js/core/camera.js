// The camera, for the creation page, the app shell's photo page and the kiosk's photo screens: the
// back camera's stream into a <video>, and a frame of it as a JPEG. What differs is a parameter:
// `constraints` (the creation page asks for a 4:3 picture as wide as 1920 where the camera has it).

export const BACK_CAMERA = { facingMode: { ideal: 'environment' } };

export function hasCamera() { return !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia); }

// Resolves the stream once its first frame shows in `video`; rejects where there is no camera or
// the user refuses.
// The camera is given back when the page goes (its light off; the next page can open it).
export function openCamera(video, constraints = BACK_CAMERA) {
  if (!hasCamera()) return Promise.reject(new Error('no camera'));
  return navigator.mediaDevices.getUserMedia({ video: constraints, audio: false }).then(function (stream) {
    video.srcObject = stream;
    window.addEventListener('pagehide', function () { stopCamera(stream); });
    const played = video.play();
    if (played && played.catch) played.catch(function () {});
    return firstFrame(video).then(function () { return stream; });
  });
}

// Resolves once the video shows a frame: a shutter enabled before then would take nothing (a
// frame of a video with no size), and the click would be lost without a word.
function firstFrame(video) {
  return new Promise(function (resolve) {
    if (video.readyState >= 2 && video.videoWidth) { resolve(); return; }
    function shown() {
      if (!video.videoWidth) return;
      video.removeEventListener('loadeddata', shown);
      video.removeEventListener('playing', shown);
      video.removeEventListener('resize', shown);
      resolve();
    }
    video.addEventListener('loadeddata', shown);
    video.addEventListener('playing', shown);
    video.addEventListener('resize', shown);
  });
}

export function stopCamera(stream) {
  if (stream) stream.getTracks().forEach(function (track) { track.stop(); });
}

// The video's frame as a JPEG: done(blob, canvas). False while the camera shows nothing yet. The
// stream is untouched: the preview stays live for the next picture.
export function grabFrame(video, quality, done) {
  if (!video.videoWidth) return false;
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
  canvas.toBlob(function (blob) { if (blob) done(blob, canvas); }, 'image/jpeg', quality);
  return true;
}
