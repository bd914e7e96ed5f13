// The tests' handles on the page's ES modules. No script of the site sets a global (each imports what
// it uses), so a test that looks into the page (the device's outbox, the creation page's state) names
// them here: once the document is parsed (its modules have run), each module of the list the page
// loaded is imported again by the URL it was loaded from, which gives the very instance the page
// uses, and set on `window` under the test's name. window.__harModules settles when all are set.
// Installed by conftest.make_driver on every new document (Page.addScriptToEvaluateOnNewDocument).
(function () {
  var NAMES = {
    HAROutbox: ['/static/js/outbox.js'],
    HARDevice: ['/static/js/device-sync.js'],
    HARHeld: ['/static/js/held-photos.js'],
    HARPhotos: ['/static/js/photo-strip.js'],
    HARCreate: ['/static/js/create/page.js', 'state'],
    HARShell: ['/static/js/device-shell.js'],
    HARWelcome: ['/static/js/welcome.js'],
    HARReview: ['/static/js/review.js', 'review'],
    HARAddrSpec: ['/static/js/addr-spec.js'],
    HARKioskOutbox: ['/static/js/kiosk/outbox.js'],
    HARIds: ['/static/js/core/ids.js']
  };
  function loaded(path) {
    var entries = performance.getEntriesByType('resource');
    for (var i = 0; i < entries.length; i++) {
      var url = new URL(entries[i].name);
      if (url.origin === location.origin && url.pathname === path) return entries[i].name;
    }
    return null;
  }
  document.addEventListener('DOMContentLoaded', function () {
    window.__harModules = Promise.all(Object.keys(NAMES).map(function (name) {
      var url = loaded(NAMES[name][0]);
      if (!url) return null;
      var key = NAMES[name][1];
      return import(url).then(function (module) { window[name] = key ? module[key] : module; }, function () {});
    }));
  });
})();
