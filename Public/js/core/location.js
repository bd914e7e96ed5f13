// Location, for the creation page, the app shell's photo page and the kiosk's photo screens: a fix
// as every page keeps it and every sender sends it (photo-form.js), altitude included where the
// device gives one, and a watch on the position. Which fixes a page keeps (the user's accuracy
// setting, the kiosk site's radius) is the page's choice, made in its `onFix`.

export const HIGH_ACCURACY = { enableHighAccuracy: true, maximumAge: 10000 };

// {latitude, longitude, accuracy, altitude (null where unknown), time}, or null.
export function fixOf(position) {
  if (!position) return null;
  const c = position.coords;
  return {
    latitude: c.latitude, longitude: c.longitude, accuracy: typeof c.accuracy === 'number' ? c.accuracy : Infinity,
    altitude: typeof c.altitude === 'number' ? c.altitude : null, time: position.timestamp || Date.now()
  };
}

// Follows the position: onFix(position) for each, onError() when denied or unavailable (and at once
// where the browser has no geolocation). Returns what stops the watch.
export function watchFix(onFix, onError, options = HIGH_ACCURACY) {
  if (!navigator.geolocation) { onError(); return function () {}; }
  const watch = navigator.geolocation.watchPosition(onFix, onError, options);
  return function () { navigator.geolocation.clearWatch(watch); };
}
