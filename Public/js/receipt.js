// A receipt's page (issue 11, KIO-06): the claim secret is the QR link's fragment; a signed-in visitor
// gets the claim form with it, a signed-out one the way to sign in. Without the fragment neither shows.
(function () {
  'use strict';
  var secret = window.location.hash.slice(1);
  if (!/^[0-9a-f]{64}$/.test(secret)) return;
  var form = document.getElementById('claim-form');
  var field = document.getElementById('claim-secret');
  if (form && field) { field.value = secret; form.hidden = false; }
  var signIn = document.getElementById('claim-signin');
  if (signIn) signIn.hidden = false;
}());
