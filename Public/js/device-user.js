// Who the device's outbox belongs to on this browser (OFF-03): the user last signed in here, kept in
// localStorage (the service worker's shell, offline, shows only that user's reports), and the outbox's
// words in the page's language (#outbox-words). Shared by the pages that file reports on the device
// (device-sync.js, device-shell.js, submit.js, create/offline.js) and the sign-out (settings.js).
import { list } from './outbox.js';
import { format } from './core/format.js';

export { format };

const USER_KEY = 'har-outbox-user';
let words = null;

export function owner() {
  try { return localStorage.getItem(USER_KEY); } catch (e) { return null; }
}

export function remember(user) {
  try { localStorage.setItem(USER_KEY, user); } catch (e) { /* private mode: this page only */ }
}

export function forget() { try { localStorage.removeItem(USER_KEY); } catch (e) { /* nothing kept */ } }

// A word of the outbox's, or its key where the page has none (a page without #outbox-words).
export function t(key) {
  if (!words) {
    words = {};
    const block = document.getElementById('outbox-words');
    if (block) Object.keys(block.dataset).forEach(function (name) { words[name] = block.dataset[name]; });
  }
  return words[key] || key;
}

// How many of this user's reports wait on the device: settings.js asks before a sign-out leaves
// them (they stay, shown and sent only to this user when they sign in again).
export function waitingCount() {
  const user = owner();
  if (!user) return Promise.resolve(0);
  return list(user).then(function (records) {
    return records.filter(function (r) { return r.status === 'waiting'; }).length;
  });
}
