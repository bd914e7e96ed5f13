// Location (CRE-03/04, SET-01/02): the page follows the user; a fix less accurate than the setting is
// ignored; with no acceptable fix for the alert duration, a sound and a banner, repeated each period.
import { settings, state, t } from './page.js';
import { showPosition } from './map.js';
import { fixOf, watchFix } from '../core/location.js';
import { keepAround } from '../core/sites.js';
import * as strip from '../photo-strip.js';

let mapStatus = null;
let sitesAskedAt = 0;
let alertBox = null;

function onPosition(position) {
  const c = position.coords;
  const accuracy = typeof c.accuracy === 'number' ? c.accuracy : Infinity;
  if (accuracy > settings.gpsAccuracyMetres) {
    // SET-01: strictly worse than the setting: ignored, remembered only for the alert's words.
    if (state.best === null || accuracy < state.best) { state.best = accuracy; state.bestAt = Date.now(); }
    return;
  }
  state.fix = fixOf(position);
  state.lastGoodAt = Date.now();
  state.best = null;
  state.bestAt = null;
  hideAlert();
  if (mapStatus) mapStatus.textContent = '';
  showPosition(c.latitude, c.longitude);
  // SITE-02: the register's sites around here, kept for the submission page offline (once a minute at most).
  if (Date.now() - sitesAskedAt > 60000) {
    sitesAskedAt = Date.now();
    keepAround(c.latitude, c.longitude);
  }
}

function hideAlert() {
  if (alertBox) { alertBox.hidden = true; alertBox.textContent = ''; }
  state.alertShownAt = null;
}

function beep() {
  state.alerts += 1;
  try {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    const audio = state.audio || (state.audio = new Context());
    if (audio.state === 'suspended' && audio.resume) audio.resume();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
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
function checkAlert() {
  const now = Date.now();
  const since = now - (state.lastGoodAt || state.startedAt);
  const period = settings.gpsAlertSeconds * 1000;
  if (since < period) return;
  if (state.alertShownAt === null || now - state.alertShownAt >= period) {
    state.alertShownAt = now;
    beep();
  }
  if (alertBox) {
    const seconds = Math.round(since / 1000);
    alertBox.textContent = state.best === null
      ? strip.format(t('create.gpsNone'), { seconds: seconds })
      : strip.format(t('create.gpsAlert'), {
        seconds: seconds, accuracy: Math.round(state.best), since: Math.round((now - state.bestAt) / 1000)
      });
    alertBox.hidden = false;
  }
}

export function startLocation() {
  mapStatus = document.getElementById('map-status');
  alertBox = document.getElementById('gps-alert');
  setInterval(checkAlert, 1000);
  watchFix(onPosition, function () { /* denied or unavailable: the alert says so */ },
    { enableHighAccuracy: true, maximumAge: 0, timeout: 60000 });
}
