// The addr-spec of RFC 5322 §3.4.1: the same rules as Sources/HeritageApp/Web/AddressSpec.swift (read
// its comment for the grammar and what is left out on purpose). An ES module: signin.js imports isValid.
export const MAX_LENGTH = 254;
var ATEXT_SPECIALS = "!#$%&'*+-/=?^_`{|}~";

function isAText(c) {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) ||
    ATEXT_SPECIALS.indexOf(String.fromCharCode(c)) >= 0;
}
function isQText(c) { return c === 33 || (c >= 35 && c <= 91) || (c >= 93 && c <= 126); }
function isDText(c) { return (c >= 33 && c <= 90) || (c >= 94 && c <= 126); }
function isVCharOrWSP(c) { return (c >= 33 && c <= 126) || c === 32 || c === 9; }

// Index just past a dot-atom-text starting at start, or -1.
function dotAtom(s, start) {
  var i = start, atom = 0;
  while (i < s.length) {
    var c = s.charCodeAt(i);
    if (isAText(c)) atom += 1;
    else if (c === 46) { if (atom === 0) return -1; atom = 0; }
    else break;
    i += 1;
  }
  return atom > 0 ? i : -1;
}

// A quoted-string ("…" with quoted-pairs) or a domain-literal ([…]); index past it, or -1.
function quoted(s, start, open, close, allowed) {
  if (s.charCodeAt(start) !== open) return -1;
  var pairs = open === 34, i = start + 1;
  while (i < s.length) {
    var c = s.charCodeAt(i);
    if (c === close) return i + 1;
    if (c === 32 || c === 9) i += 1;
    else if (pairs && c === 92) {
      if (i + 1 >= s.length || !isVCharOrWSP(s.charCodeAt(i + 1))) return -1;
      i += 2;
    } else if (allowed(c)) i += 1;
    else return -1;
  }
  return -1;
}

function utf8Length(s) {
  var n = 0;
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : (c >= 0xD800 && c <= 0xDBFF) ? (i++, 4) : 3;
  }
  return n;
}

export function isValid(s) {
  if (typeof s !== 'string' || s.length === 0 || utf8Length(s) > MAX_LENGTH) return false;
  // Anything outside ASCII fails below anyway (no rule admits it); checked first for clarity.
  for (var k = 0; k < s.length; k++) if (s.charCodeAt(k) > 126) return false;
  var i = s.charCodeAt(0) === 34 ? quoted(s, 0, 34, 34, isQText) : dotAtom(s, 0);
  if (i < 0 || i >= s.length || s.charCodeAt(i) !== 64) return false;
  i += 1;
  if (i >= s.length) return false;
  var end = s.charCodeAt(i) === 91 ? quoted(s, i, 91, 93, isDText) : dotAtom(s, i);
  return end === s.length;
}
