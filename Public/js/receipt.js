// A receipt's page (KIO-06): the claim secret is the QR link's fragment; a signed-in visitor
// gets the claim form with it, a signed-out one the way to sign in. Without the secret neither shows.
// The fragment is taken out of the address at once (history.replaceState), so the secret stays in no
// history entry of the visitor's browser; it is kept for this tab only (sessionStorage), for a return
// from signing in, and dropped once the report is claimed. An ES module.
var key = 'har-receipt-secret:' + window.location.pathname;
var store = null;
try { store = window.sessionStorage; } catch (e) { store = null; }
var fragment = window.location.hash.slice(1);
if (fragment) {
  if (/^[0-9a-f]{64}$/.test(fragment) && store) {
    try { store.setItem(key, fragment); } catch (e) { /* private mode: the form below still has it */ }
  }
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
}

// The claim form and the way to sign in, once the secret is known (and the report not claimed yet).
function offerClaim() {
  if (/[?&]claimed=1(&|$)/.test(window.location.search) && store) {
    try { store.removeItem(key); } catch (e) { /* nothing kept */ }
    return;
  }
  var secret = /^[0-9a-f]{64}$/.test(fragment) ? fragment : null;
  if (!secret && store) {
    try { secret = store.getItem(key); } catch (e) { secret = null; }
  }
  if (!secret || !/^[0-9a-f]{64}$/.test(secret)) return;
  var form = document.getElementById('claim-form');
  var field = document.getElementById('claim-secret');
  if (form && field) { field.value = secret; form.hidden = false; }
  var signIn = document.getElementById('claim-signin');
  if (signIn) signIn.hidden = false;
}

offerClaim();
