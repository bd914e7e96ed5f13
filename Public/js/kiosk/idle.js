// "Still there?": after the kiosk's idle time with no touch, a countdown; at its end the reset
// (visit.js). More time closes it. A Submit under way is not cut short.
import { kiosk, listen, onCleanUp, reset } from './visit.js';

export function idleWatch() {
  const body = kiosk.body;
  const idle = parseInt(body.getAttribute('data-idle'), 10);
  const countdown = parseInt(body.getAttribute('data-countdown'), 10);
  const dialog = document.getElementById('kiosk-idle');
  if (!idle || !countdown || !dialog) return;
  const count = document.getElementById('kiosk-idle-count');
  const more = document.getElementById('kiosk-more-time');
  let idleTimer = null;
  let tick = null;
  let left = 0;
  onCleanUp(function () { window.clearTimeout(idleTimer); window.clearInterval(tick); });
  function show() {
    // A Submit under way (its held photos, then the report) is not cut short: the reset would drop
    // what the tablet holds. The watch looks again a full idle time later.
    if (kiosk.submitting) { idleTimer = window.setTimeout(show, idle * 1000); return; }
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
    listen(document, name, restart, { passive: true, capture: true });
  });
  restart();
}
