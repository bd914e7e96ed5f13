// The send loop both outboxes share (the volunteer's device and the kiosk's tablet): each kept
// report goes in three steps the server answers the same however often they come (open, each photo
// the server lacks, submit), one report at a time, oldest first; a record goes only after the
// submit's answer. What differs between the two is given as parameters (`createSender`).
//
// The retry policy, the same for both: no answer, a server failing or busy (5xx, 408, 429), or a form
// token to renew stop the round and keep everything for a later one (RetryLater); 401 (the user's
// session or the kiosk's credential gone) stops it too and says so (SignedOut), keeping everything;
// any other answer that is not a success is the server refusing the report for good (the caller's
// `refuse` keeps it, marked, for a person to see).
import { heldPhotoForm } from './photo-form.js';

export function SignedOut() { this.signedOut = true; }
export function RetryLater(message) { this.retryLater = true; this.message = message; }

// `forbiddenIsRetry`: every 403 is a credential refused now (the kiosk's, perhaps linked again later),
// not only the form token's (the volunteer's, where any other 403 refuses the report).
function post(url, body, csrf, forbiddenIsRetry) {
  return fetch(url, {
    method: 'POST', credentials: 'same-origin', body: body,
    headers: { 'Accept': 'application/json', 'X-CSRF-Token': csrf }
  }).then(function (response) {
    return response.text().then(function (text) {
      let json = null;
      try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
      const status = response.status;
      if (status === 401) throw new SignedOut();
      const csrfRefused = status === 403 && (forbiddenIsRetry || (json && json.error === 'csrf'));
      if (status >= 500 || status === 408 || status === 429 || csrfRefused) throw new RetryLater(json && json.message);
      return { status: status, body: json };
    });
  }, function () { throw new RetryLater(null); });
}

// Runs `work` alone among the pages and workers of this origin where the browser has Web Locks.
export function exclusively(name, work) {
  if (self.navigator && navigator.locks && navigator.locks.request) return navigator.locks.request(name, work);
  return work();
}

// `reports(id)`: the report's URL (open; `/submit` after it); `photos(id)`: where its photos go;
// `refuse(record, answer)`: keeps a refused record (resolves 'refused'); `remove(id)`: forgets a sent one.
export function createSender({ reports, photos, refuse, remove, forbiddenIsRetry = false }) {
  function call(url, body, csrf) { return post(url, body, csrf, forbiddenIsRetry); }

  function refusal(answer) { return { refused: true, answer: answer }; }

  // One report: resolves 'sent' or 'refused'; rejects SignedOut or RetryLater.
  function sendOne(record, csrf) {
    return call(reports(record.id), null, csrf).then(function (opened) {
      if (opened.status === 200 && opened.body && opened.body.state === 'submitted') return 'submitted';
      if (opened.status !== 200 || !opened.body) return refuse(record, opened);
      const have = opened.body.photos || [];
      let chain = Promise.resolve();
      record.photos.forEach(function (photo) {
        if (have.indexOf(photo.id) >= 0) return;
        chain = chain.then(function () {
          return call(photos(record.id), heldPhotoForm(photo), csrf).then(function (answer) {
            if (answer.status !== 200 && answer.status !== 201) throw refusal(answer);
          });
        });
      });
      return chain.then(function () {
        const body = new URLSearchParams();
        body.append('submit_token', record.token);
        Object.keys(record.fields || {}).forEach(function (key) { body.append(key, record.fields[key]); });
        return call(reports(record.id) + '/submit', body, csrf);
      }).then(function (answer) {
        return answer.status === 200 ? 'submitted' : refuse(record, answer);
      }, function (error) {
        if (error && error.refused) return refuse(record, error.answer);
        throw error;
      });
    }).then(function (outcome) {
      if (outcome !== 'submitted') return outcome;
      return remove(record.id).then(function () { return 'sent'; });
    });
  }

  // Sends `records` in that order, one at a time, until one cannot go now. Resolves {sent, waiting,
  // signedOut}.
  function sendAll(records, csrf) {
    const result = { sent: 0, waiting: records.length, signedOut: false };
    let stopped = false;
    let chain = Promise.resolve();
    records.forEach(function (record) {
      chain = chain.then(function () {
        if (stopped) return;
        return sendOne(record, csrf).then(function (outcome) {
          if (outcome === 'sent') { result.sent += 1; result.waiting -= 1; }
        }, function (error) {
          stopped = true;
          if (error && error.signedOut) result.signedOut = true;
        });
      });
    });
    return chain.then(function () { return result; });
  }

  return { sendAll: sendAll };
}

// When to try again after a round that left reports waiting: `first`, doubling up to `most` (equal
// values: a steady rhythm). `reset()` after a round that left none, or when the network comes back.
export function backoff(first, most) {
  let delay = first;
  return {
    next: function () { const now = delay; delay = Math.min(delay * 2, most); return now; },
    reset: function () { delay = first; }
  };
}
