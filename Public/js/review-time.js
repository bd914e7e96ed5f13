// Times on the coordinators' pages: the server writes <time datetime="ISO">exact UTC</time>, the text
// that stays without JavaScript; here each becomes the reader's own zone and language with a relative
// hint ("3 min ago"), the exact time with its zone in the tooltip. The server cannot know the zone.
// An ES module.
var STEPS = [['second', 60], ['minute', 60], ['hour', 24], ['day', 30], ['month', 12], ['year', Infinity]];

function language() {
  return document.documentElement.lang || undefined;
}

function relative(date, now) {
  if (typeof Intl === 'undefined' || !Intl.RelativeTimeFormat) return '';
  var format = new Intl.RelativeTimeFormat(language(), { numeric: 'auto', style: 'short' });
  var amount = (date.getTime() - now) / 1000;
  for (var i = 0; i < STEPS.length; i++) {
    if (Math.abs(amount) < STEPS[i][1] || i === STEPS.length - 1) {
      return format.format(Math.round(amount), STEPS[i][0]);
    }
    amount /= STEPS[i][1];
  }
  return '';
}

function localise(element, now) {
  var date = new Date(element.getAttribute('datetime'));
  if (isNaN(date.getTime())) return;
  if (!element.dataset.utc) element.dataset.utc = element.textContent;
  var short = new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
  var exact = new Intl.DateTimeFormat(language(), {
    dateStyle: 'full', timeStyle: 'long'
  }).format(date);
  var hint = relative(date, now);
  element.textContent = short;
  if (hint) {
    var ago = document.createElement('span');
    ago.className = 'review-ago';
    ago.textContent = hint;
    element.appendChild(ago);
  }
  element.title = exact + ' (' + element.dataset.utc + ')';
}

function localiseAll() {
  if (typeof Intl === 'undefined' || !Intl.DateTimeFormat) return;
  var now = Date.now();
  Array.prototype.forEach.call(document.querySelectorAll('time.review-time[datetime]'), function (element) {
    localise(element, now);
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', localiseAll);
else localiseAll();
// The relative hints age with the page; once a minute keeps "3 min ago" true.
setInterval(localiseAll, 60000);
