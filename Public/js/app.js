// Every page's module (CSP: script-src 'self', so no inline script or handler anywhere): the times the
// server wrote in UTC, in the reader's zone. What pages share lives in core/ (http.js, settings.js,
// dialog.js, times.js) and is imported where used: no script leaves anything on `window`.
import { formatTimes } from './core/times.js';

formatTimes(document);
