// Report list (LST-02..09). The page arrives rendered from the local store; this script then asks the
// server to refresh from the platform (LST-05) without holding the page, polls while reports are on
// their way (a queued row turns Stored without a reload), deletes rows in place with the
// deletion-failure dialog (LST-08) when the platform refuses, and grows the list in place on
// "Show more" (the page shows the newest reports first; the link works without this script too).
// An ES module.
import { postJSON } from './core/http.js';
import { showDialog } from './core/dialog.js';
import { formatTimes } from './core/times.js';

var list, status, pollTimer = null, busy = false, lastHTML = null;
// Bumped by "Show more": a refresh or poll sent before it asked for fewer rows, and its answer,
// arriving later, must not shrink the list back.
var generation = 0;
var POLL_MS = 5000;

// Every request for rows asks for as many as the page shows now.
function rowsQuery() {
  return '?show=' + encodeURIComponent(list.dataset.shown || '');
}

function replaceMore(answer) {
  var more = document.getElementById('show-more');
  if (!more || typeof answer.moreHTML !== 'string') return;
  var holder = document.createElement('div');
  holder.innerHTML = answer.moreHTML;
  if (holder.firstElementChild) more.parentNode.replaceChild(holder.firstElementChild, more);
}

function replaceRows(answer) {
  if (!answer || typeof answer.html !== 'string') return;
  list.dataset.pending = answer.pending ? '1' : '';
  if (typeof answer.shown === 'number') list.dataset.shown = String(answer.shown);
  replaceMore(answer);
  // Unchanged rows are left alone: no flicker, and focus stays on the button a user is on.
  if (answer.html === lastHTML) return;
  lastHTML = answer.html;
  list.innerHTML = answer.html;
  formatTimes(list);
}

// "Show more": the next rows are fetched and the list re-rendered; focus goes to the first new row,
// and the address keeps the count so that a reload (or Back) shows as many.
function onShowMore(event) {
  var link = event.target.closest && event.target.closest('#show-more-link');
  // A click with a modifier (a new tab or window) is the browser's, and so is one while a delete is
  // on its way (the link then works as it does without this script).
  if (!link || busy || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  var url = new URL(link.href, window.location.href);
  var before = list.querySelectorAll('.report-row').length;
  generation += 1;
  busy = true;
  link.setAttribute('aria-disabled', 'true');
  fetch('/api/reports' + url.search, { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
    .then(function (response) {
      if (response.status === 401) { window.location.assign('/signin?notice=expired'); return null; }
      return response.ok ? response.json() : null;
    })
    .then(function (answer) {
      if (!answer) { window.location.assign(link.href); return; }
      replaceRows(answer);
      history.replaceState(null, '', '/reports' + url.search);
      var first = list.querySelectorAll('.report-row')[before];
      if (first) { first.tabIndex = -1; first.focus(); return; }
      // No new row (deleted meanwhile elsewhere): focus stays near, on the new link or the last row.
      var next = document.getElementById('show-more-link') || list.querySelector('.report-row:last-child');
      if (next) { if (!next.href) next.tabIndex = -1; next.focus(); }
    }, function () { window.location.assign(link.href); })
    .then(function () { busy = false; schedulePoll(); });
}

function showStatus(text) {
  status.textContent = text || '';
  status.hidden = !text;
}

function schedulePoll() {
  if (pollTimer) clearTimeout(pollTimer);
  pollTimer = null;
  if (list.dataset.pending === '1') pollTimer = setTimeout(poll, POLL_MS);
}

// Local state only (cheap): how far the upload worker got.
function poll() {
  if (busy || document.hidden) { schedulePoll(); return; }
  var sent = generation;
  fetch('/api/reports' + rowsQuery(), { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
    .then(function (response) {
      if (response.status === 401) { window.location.assign('/signin?notice=expired'); return null; }
      return response.ok ? response.json() : null;
    })
    .then(function (answer) { if (answer && !busy && sent === generation) replaceRows(answer); })
    .catch(function () { /* offline for a moment: try again at the next tick */ })
    .then(schedulePoll);
}

function refresh() {
  var sent = generation;
  postJSON('/api/reports/refresh' + rowsQuery(), {}, 20000).then(function (result) {
    if (result.body && !busy && sent === generation) replaceRows(result.body);
    showStatus(result.status === 200 ? '' : list.dataset.refreshFailed);
    list.dataset.refreshed = result.status === 200 ? 'ok' : 'failed';
  }, function () {
    showStatus(list.dataset.refreshFailed);
    list.dataset.refreshed = 'failed';
  }).then(schedulePoll);
}

function removeRow(row) {
  if (row && row.parentNode) row.parentNode.removeChild(row);
  if (!list.querySelector('.report-row')) {
    var empty = document.createElement('li');
    empty.className = 'empty-state';
    empty.id = 'empty-state';
    empty.textContent = list.dataset.emptyText;
    list.appendChild(empty);
  }
}

// Each row's Delete button submits the page's one delete form (form="delete-form") to its own
// formaction; here the click is taken over and sent with fetch instead.
function onDelete(event) {
  var button = event.target.closest && event.target.closest('.delete-button');
  if (!button) return;
  event.preventDefault();
  var row = button.closest('.report-row');
  if (button.disabled) return;
  button.disabled = true;
  busy = true;
  function failed() {
    button.disabled = false;
    return showDialog(list.dataset.failureTitle, list.dataset.failureMessage);
  }
  postJSON(button.getAttribute('formaction'), {}, 30000).then(function (result) {
    if (result.status === 200 || result.status === 404) removeRow(row);  // LST-09 (404: already gone here)
    else if (result.status !== 401) return failed();                      // LST-08
  }, failed).then(function () { busy = false; });
}

document.addEventListener('DOMContentLoaded', function () {
  list = document.getElementById('report-list');
  status = document.getElementById('refresh-status');
  if (!list) return;
  list.addEventListener('click', onDelete);
  document.addEventListener('click', onShowMore);
  refresh();
});
