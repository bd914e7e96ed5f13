// Ids made on the device: a random UUID (a report's or a photo's id, the same on the server, so that
// a retry after a lost answer is the same report or photo there, never a second one) and a submit
// token (64 hex digits).

function hex(bytes) {
  return Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join('');
}

export function uuid() {
  if (self.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const text = hex(bytes);
  return text.slice(0, 8) + '-' + text.slice(8, 12) + '-' + text.slice(12, 16) + '-' + text.slice(16, 20) + '-' +
    text.slice(20);
}

export function token() { return hex(crypto.getRandomValues(new Uint8Array(32))); }
