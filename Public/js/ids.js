// Ids made on the device (issues 11 and 12): a random UUID (a report's or a photo's id, the same on
// the server) and a submit token (64 hex digits). One copy for the volunteer's outbox (outbox.js), the
// kiosk's (kiosk-outbox.js) and the kiosk's pages (kiosk.js); loaded before them by pages and by both
// service workers (importScripts in sw.js; kiosk-sw.js keeps every script its shell names). self.HARIds.
(function (global) {
  'use strict';

  function hex(bytes) {
    return Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join('');
  }

  function uuid() {
    if (global.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var text = hex(bytes);
    return text.slice(0, 8) + '-' + text.slice(8, 12) + '-' + text.slice(12, 16) + '-' + text.slice(16, 20) + '-' +
      text.slice(20);
  }

  function token() { return hex(crypto.getRandomValues(new Uint8Array(32))); }

  global.HARIds = { uuid: uuid, token: token };
})(self);
