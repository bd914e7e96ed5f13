// The page's <dialog id="har-dialog">, shown with a title and message; focus returns where it was.

export function showDialog(title, message) {
  const dialog = document.getElementById('har-dialog');
  if (!dialog) return Promise.resolve();
  const previous = document.activeElement;
  document.getElementById('har-dialog-title').textContent = title;
  document.getElementById('har-dialog-message').textContent = message;
  return new Promise(function (resolve) {
    function closed() {
      dialog.removeEventListener('close', closed);
      if (previous && previous.focus && document.contains(previous)) previous.focus();
      resolve();
    }
    dialog.addEventListener('close', closed);
    if (typeof dialog.showModal === 'function') dialog.showModal(); else dialog.setAttribute('open', '');
    const ok = document.getElementById('har-dialog-ok');
    if (ok) ok.focus();
  });
}
