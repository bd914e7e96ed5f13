// Enrolment of a kiosk's tablet: the one-time token comes in the link's fragment (never sent
// to a server, so never in a log); it fills the form and leaves the address bar. An ES module.
var token = window.location.hash.slice(1);
var field = document.getElementById('enrol-token');
if (token && field) {
  field.value = token;
  window.history.replaceState(null, '', window.location.pathname);
}
