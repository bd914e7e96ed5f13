// <time datetime="ISO" class="local-time">server fallback</time> → the user's locale and time zone
// (LST-03), in the page's language. The server's text stays where there is no Intl.

export function formatTimes(root) {
  if (typeof Intl === 'undefined' || !Intl.DateTimeFormat) return;
  let format;
  try {
    format = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
  } catch (e) { return; }
  (root || document).querySelectorAll('time.local-time[datetime]').forEach(function (node) {
    const date = new Date(node.getAttribute('datetime'));
    if (!isNaN(date.getTime())) node.textContent = format.format(date);
  });
}
