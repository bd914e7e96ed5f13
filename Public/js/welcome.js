// First use: the welcome screens on the sign-in page of a browser that has never shown them,
// and the guide to the list's states after the first sign-in. Each shows once per browser
// (localStorage), can be reopened from settings, and never on a kiosk. The welcome is three screens in
// a <dialog>: Next/Back buttons, the arrow keys and a horizontal swipe move between them; Sign in (OK
// when signed in) on each closes it; Escape too. The guide closes on its ×, Escape or a tap anywhere.
// An ES module; welcome() and guide() open them again (settings' links, and the tests).
var WELCOME = 'har-welcome-seen';
var GUIDE = 'har-guide-seen';
var STEPS = 3;
var openers = { welcome: null, guide: null };

function seen(key) { try { return localStorage.getItem(key) === '1'; } catch (e) { return true; } }
function remember(key) { try { localStorage.setItem(key, '1'); } catch (e) { /* shown again next time */ } }
function isKiosk() {
  return document.body.classList.contains('page-kiosk') || location.pathname.indexOf('/kiosk') === 0 ||
    document.documentElement.hasAttribute('data-kiosk');
}

function show(dialog) {
  if (typeof dialog.showModal === 'function') dialog.showModal(); else dialog.setAttribute('open', '');
}

function wireWelcome(dialog) {
  var step = 1;
  var back = document.getElementById('welcome-back');
  var next = document.getElementById('welcome-next');
  var progress = document.getElementById('welcome-progress');

  function go(to) {
    step = Math.max(1, Math.min(STEPS, to));
    for (var n = 1; n <= STEPS; n++) document.getElementById('welcome-step-' + n).hidden = n !== step;
    dialog.setAttribute('aria-labelledby', 'welcome-title-' + step);
    dialog.setAttribute('data-step', String(step));
    back.hidden = step === 1;
    next.hidden = step === STEPS;
    progress.textContent = progress.getAttribute('data-format').replace('{n}', String(step))
      .replace('{total}', String(STEPS));
  }

  back.addEventListener('click', function () { go(step - 1); (step === 1 ? next : back).focus(); });
  next.addEventListener('click', function () {
    go(step + 1);
    (step === STEPS ? document.getElementById('welcome-done') : next).focus();
  });
  dialog.addEventListener('keydown', function (event) {
    if (event.key === 'ArrowRight') { go(step + 1); event.preventDefault(); }
    if (event.key === 'ArrowLeft') { go(step - 1); event.preventDefault(); }
  });
  var startX = null;
  dialog.addEventListener('pointerdown', function (event) { startX = event.clientX; });
  dialog.addEventListener('pointerup', function (event) {
    if (startX === null) return;
    var dx = event.clientX - startX;
    startX = null;
    if (Math.abs(dx) > 50) go(step + (dx < 0 ? 1 : -1));
  });
  dialog.addEventListener('close', function () {
    remember(WELCOME);
    var email = document.getElementById('email');
    if (email) email.focus();
  });
  return function () { go(1); show(dialog); };
}

function wireGuide(dialog) {
  // A tap anywhere (the backdrop included) closes it, as does its ×.
  dialog.addEventListener('click', function () { dialog.close(); });
  dialog.addEventListener('close', function () { remember(GUIDE); });
  return function () { show(dialog); };
}

function start() {
  if (isKiosk()) return;
  var welcomeDialog = document.getElementById('welcome');
  var guideDialog = document.getElementById('guide');
  var openWelcome = welcomeDialog ? wireWelcome(welcomeDialog) : null;
  var openGuide = guideDialog ? wireGuide(guideDialog) : null;
  var signedIn = !!document.querySelector('meta[name="har-csrf"]') && !document.getElementById('signin-form');
  if (openWelcome && !signedIn && !seen(WELCOME)) openWelcome();
  // The first sign-in: the guide on the list. The welcome is not shown again after it.
  if (openGuide && signedIn && !seen(GUIDE)) { remember(WELCOME); openGuide(); }
  var again = document.getElementById('welcome-again');
  if (again && openWelcome) again.addEventListener('click', function () { openWelcome(); });
  var guideAgain = document.getElementById('guide-again');
  if (guideAgain && openGuide) guideAgain.addEventListener('click', function () { openGuide(); });
  openers = { welcome: openWelcome, guide: openGuide };
}

export function welcome() { if (openers.welcome) openers.welcome(); }
export function guide() { if (openers.guide) openers.guide(); }

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
