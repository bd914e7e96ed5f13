// A photo as its upload's form, the same for every sender (the creation page, the kiosk's photo screen,
// both outboxes): its id (the server keeps each once), its fix where there is one (altitude too when
// the device gave it: the server keeps it, whichever page took the photo), the time of the fix or the
// photo (`time`, left out where there is none), and the picture last.
export function photoForm({ id, blob, name, fix, time }) {
  const form = new FormData();
  form.append('photo_id', id);
  if (fix && fix.latitude !== undefined && fix.latitude !== null) {
    form.append('latitude', String(fix.latitude));
    form.append('longitude', String(fix.longitude));
    if (fix.accuracy !== null && fix.accuracy !== undefined) form.append('accuracy', String(fix.accuracy));
    if (fix.altitude !== null && fix.altitude !== undefined) form.append('altitude', String(fix.altitude));
  }
  if (time !== null && time !== undefined) form.append('fix_time', String(Math.round(time)));
  form.append('photo', blob, name || 'photo.jpg');
  return form;
}

// A photo kept in an outbox ({id, blob, name, fix, takenAt}) as its form: the time it was taken.
export function heldPhotoForm(photo) {
  return photoForm({ id: photo.id, blob: photo.blob, name: photo.name, fix: photo.fix, time: photo.takenAt || Date.now() });
}
