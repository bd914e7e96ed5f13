// The signed-in user's settings (SET-01..03), given by the server in
// <script type="application/json" id="har-settings"> (settings.js writes it back after a save).

const DEFAULTS = { gpsAccuracyMetres: 20, gpsAlertSeconds: 60, wirelessOnly: false };

export function settings() {
  const block = document.getElementById('har-settings');
  if (!block) return Object.assign({}, DEFAULTS);
  try { return JSON.parse(block.textContent); } catch (e) { return Object.assign({}, DEFAULTS); }
}
