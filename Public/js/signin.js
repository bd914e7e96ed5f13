// Sign-in screen (LOG-04..16): colours come from app.css (idle, focus, holding text); this script
// trims the e-mail on blur (LOG-08), checks it against RFC 5322's addr-spec (LOG-11), refuses empty
// fields on Connect (LOG-12, LOG-13) and runs the eye toggle (LOG-14, LOG-15). The server repeats
// every check for a browser without JavaScript. An ES module.
import { isValid, MAX_LENGTH } from './addr-spec.js';

function setError(field, message) {
  var box = document.getElementById(field.id + '-error');
  if (box) box.textContent = message || '';
  if (message) field.setAttribute('aria-invalid', 'true'); else field.removeAttribute('aria-invalid');
}

document.addEventListener('DOMContentLoaded', function () {
  var form = document.getElementById('signin-form');
  if (!form) return;
  var email = document.getElementById('email');
  var password = document.getElementById('password');
  var toggle = document.getElementById('password-toggle');
  var connect = document.getElementById('connect');
  var messages = form.dataset;

  function emailMessage() {
    var value = email.value;
    if (value.length === 0) return '';
    if (!isValid(value)) {
      return new TextEncoder().encode(value).length > MAX_LENGTH ? messages.emailTooLong : messages.emailInvalid;
    }
    return '';
  }

  email.addEventListener('blur', function () {
    var trimmed = email.value.trim();
    if (trimmed !== email.value) email.value = trimmed;
    setError(email, emailMessage());
  });
  email.addEventListener('input', function () {
    if (email.getAttribute('aria-invalid') && !emailMessage()) setError(email, '');
  });
  password.addEventListener('input', function () {
    if (password.value.length > 0) setError(password, '');
  });

  // LOG-14/15: starts as eye-slash (hidden); each click swaps icon, input type and the spoken label.
  toggle.hidden = false;
  toggle.addEventListener('click', function () {
    var show = password.type === 'password';
    password.type = show ? 'text' : 'password';
    toggle.classList.toggle('is-showing', show);
    toggle.setAttribute('aria-pressed', show ? 'true' : 'false');
    toggle.setAttribute('aria-label', show ? toggle.dataset.labelHide : toggle.dataset.labelShow);
  });

  form.addEventListener('submit', function (event) {
    email.value = email.value.trim();
    var emailError = email.value.length === 0 ? messages.emailEmpty : emailMessage();
    var passwordError = password.value.length === 0 ? messages.passwordEmpty : '';
    setError(email, emailError);
    setError(password, passwordError);
    if (emailError || passwordError) {
      event.preventDefault();
      (emailError ? email : password).focus();
      return;
    }
    // The form posts normally; the busy label stops a second click from sending it twice.
    if (form.dataset.sent === '1') { event.preventDefault(); return; }
    form.dataset.sent = '1';
    connect.textContent = connect.dataset.busyLabel;
    connect.setAttribute('aria-busy', 'true');
  });
});
