// At most page.maxPhotos photos per report (CRE-11). Photos waiting on the device for a wireless
// network count: they take their places in the report once sent.
import { page, t } from './page.js';
import * as strip from '../photo-strip.js';

export function isFull() { return strip.count() + strip.waitingCount() >= page.maxPhotos; }

// A place came free: the "full" message, if it shows, goes.
export function updateFull() {
  if (!isFull() && document.getElementById('photo-message').textContent === t('photos.errors.full')) strip.say('');
}
