// The answer to a coordinator's question (REV-04): photos picked here are sent one after another to
// /api/reports/{id}/reply/photos with the CSRF header (the server checks it before reading the body),
// and each one kept is shown in the row at once. Without JavaScript the page still sends the answer;
// only adding photos needs this script. An ES module.
import { csrf } from './core/http.js';
import { format } from './core/format.js';

function start() {
  var row = document.getElementById('reply-photos');
  var picker = document.getElementById('reply-picker');
  var input = document.getElementById('reply-file');
  var message = document.getElementById('reply-photo-message');
  if (!row || !picker || !input) return;
  picker.hidden = false;
  var localID = row.getAttribute('data-local-id');
  var max = parseInt(row.getAttribute('data-max'), 10) || 20;

  function say(text) { if (message) message.textContent = text || ''; }

  function append(answer) {
    var item = document.createElement('li');
    item.className = 'photo-item';
    item.setAttribute('data-id', answer.id);
    var img = document.createElement('img');
    img.className = 'photo-thumb';
    img.width = 72;
    img.height = 72;
    img.src = answer.thumb;
    img.alt = format(row.getAttribute('data-alt'), { n: String(row.children.length + 1) });
    item.appendChild(img);
    row.appendChild(item);
    if (row.children.length >= max) picker.hidden = true;
  }

  function send(file) {
    var form = new FormData();
    form.append('photo', file, file.name || 'photo.jpg');
    return fetch('/api/reports/' + encodeURIComponent(localID) + '/reply/photos', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Accept': 'application/json', 'X-CSRF-Token': csrf() },
      body: form
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (response.status === 201 && body) {
          append(body);
          return true;
        }
        say(body && body.message ? body.message : String(response.status));
        return false;
      });
    });
  }

  input.addEventListener('change', function () {
    var files = Array.prototype.slice.call(input.files || []);
    input.value = '';
    say('');
    files.reduce(function (previous, file) {
      return previous.then(function (goOn) { return goOn ? send(file) : false; });
    }, Promise.resolve(true)).catch(function () { say(row.getAttribute('data-failed') || ''); });
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
