// Report creation: what the server gave the page (the draft, its photos, the words), the user's
// settings, and the state shared by the other modules of Public/js/create/ (the tests read it too, by
// importing this module).
import { settings as userSettings } from '../core/settings.js';

function readDraftData() {
  const block = document.getElementById('draft-data');
  try { return JSON.parse(block.textContent); } catch (e) { return { photos: [], messages: {}, maxPhotos: 20 }; }
}

export const page = readDraftData();
export const settings = userSettings();
export function t(key) { return page.messages[key] || key; }
export const labels = {
  alt: t('photos.photoAlt'), remove: t('photos.remove'), removed: t('photos.removed'), failed: t('photos.errors.failed'),
  waiting: t('create.heldPhoto')
};

export const state = {
  fix: null,            // the most recent ACCEPTABLE fix (SET-01)
  lastGoodAt: null,     // when it came (ms)
  best: null,           // best accuracy seen since then, among fixes not good enough
  bestAt: null,
  startedAt: Date.now(),
  alerts: 0,            // sounds played (SET-02)
  alertShownAt: null,
  map: null, userMarker: null, markers: {}, uploads: Promise.resolve()
};
