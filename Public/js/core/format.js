// `{name}` placeholders in a message from the server's catalogue, filled from `values`; a name with
// no value stays as it is.

export function format(text, values) {
  return String(text || '').replace(/\{(\w+)\}/g, function (all, name) { return values[name] !== undefined ? values[name] : all; });
}
