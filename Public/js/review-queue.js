// The dashboard's queue (REV-05), an extra over a page that works without it: the bulk bar shows only
// once a row is ticked (sticky at the bottom, with the count); a box in the table's head ticks the
// whole page; the map sits beside the table on a wide screen and behind its toggle below that; on a
// phone the filters fold under their summary.
// Without JavaScript the bulk form stays in the page below the table, and the map is not drawn.
// An ES module: review.js sets it up with the map it draws.
var WIDE = '(min-width: 1200px)';
var NARROW = '(max-width: 599px)';

function setUpBulkBar() {
  var form = document.getElementById('bulk-form');
  if (!form) return;
  var boxes = Array.prototype.slice.call(document.querySelectorAll('#review-table .review-select'));
  var page = document.getElementById('select-page');
  var count = document.getElementById('bulk-count');
  form.classList.add('review-bulk-bar');

  function update() {
    var ticked = boxes.filter(function (box) { return box.checked; }).length;
    form.hidden = ticked === 0;
    if (count) count.textContent = String(form.dataset.ticked || '{count}').replace('{count}', String(ticked));
    if (page) {
      page.checked = ticked > 0 && ticked === boxes.length;
      page.indeterminate = ticked > 0 && ticked < boxes.length;
    }
  }

  boxes.forEach(function (box) { box.addEventListener('change', update); });
  if (page && boxes.length) {
    page.hidden = false;
    page.addEventListener('change', function () {
      boxes.forEach(function (box) { box.checked = page.checked; });
      update();
    });
  }
  // Ticks the browser restored on going back count too.
  update();
}

function setUpMapToggle(review) {
  var section = document.getElementById('review-map-section');
  if (!section || !window.L) return;
  section.hidden = false;
  var wide = window.matchMedia ? window.matchMedia(WIDE) : null;
  if (wide && wide.matches) section.open = true;
  if (wide && wide.addEventListener) {
    wide.addEventListener('change', function (event) { if (event.matches) section.open = true; });
  }
  // Drawn while closed, the map has no size: it is measured again, and fitted, when it opens.
  section.addEventListener('toggle', function () {
    if (!section.open || !review || !review.map) return;
    review.map.invalidateSize();
    if (review.cluster && review.cluster.getLayers().length) {
      review.map.fitBounds(review.cluster.getBounds(), { maxZoom: 16, padding: [24, 24] });
    }
  });
}

// On a phone the filters fold away under their summary, unless the page is filtered: the rows come first.
function foldFilters() {
  var box = document.getElementById('review-filter-box');
  var form = document.getElementById('review-filters');
  if (!box || !form || !window.matchMedia) return;
  if (window.matchMedia(NARROW).matches && !form.dataset.set) box.open = false;
}

export function setUpQueue(review) {
  foldFilters();
  setUpBulkBar();
  setUpMapToggle(review);
}
