// Report list (LST-02..09). The page arrives rendered from the local store; this script then asks the
// server to refresh from the platform (LST-05) without holding the page, polls while reports are on
// their way (a queued row turns Stored without a reload), and deletes rows in place with the
// deletion-failure dialog (LST-08) when the platform refuses.
(function () {
  'use strict';
  var list, status, pollTimer = null, busy = false, lastHTML = null;
  var POLL_MS = 5000;

  function replaceRows(answer) {
    if (!answer || typeof answer.html !== 'string') return;
    list.dataset.pending = answer.pending ? '1' : '';
    // Unchanged rows are left alone: no flicker, and focus stays on the button a user is on.
    if (answer.html === lastHTML) return;
    lastHTML = answer.html;
    list.innerHTML = answer.html;
    list.dataset.pending = answer.pending ? '1' : '';
    window.HAR.formatTimes(list);
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
    fetch('/api/reports', { credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
      .then(function (response) {
        if (response.status === 401) { window.location.assign('/signin?notice=expired'); return null; }
        return response.ok ? response.json() : null;
      })
      .then(function (answer) { if (answer && !busy) replaceRows(answer); })
      .catch(function () { /* offline for a moment: try again at the next tick */ })
      .then(schedulePoll);
  }

  function refresh() {
    window.HAR.postJSON('/api/reports/refresh', {}, 20000).then(function (result) {
      if (result.body && !busy) replaceRows(result.body);
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

  function onDelete(event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains('delete-form')) return;
    event.preventDefault();
    var row = form.closest('.report-row');
    var button = form.querySelector('button');
    if (button.disabled) return;
    button.disabled = true;
    busy = true;
    function failed() {
      button.disabled = false;
      return window.HAR.showDialog(list.dataset.failureTitle, list.dataset.failureMessage);
    }
    window.HAR.postJSON(form.getAttribute('action'), {}, 30000).then(function (result) {
      if (result.status === 200 || result.status === 404) removeRow(row);  // LST-09 (404: already gone here)
      else if (result.status !== 401) return failed();                      // LST-08
    }, failed).then(function () { busy = false; });
  }

  document.addEventListener('DOMContentLoaded', function () {
    list = document.getElementById('report-list');
    status = document.getElementById('refresh-status');
    if (!list) return;
    list.addEventListener('submit', onDelete);
    refresh();
  });
})();
