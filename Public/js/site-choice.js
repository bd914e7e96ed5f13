// The submission page's choice of site (SITE-02), an ES module: a pick among the server's radios fills
// the name, designation and grade at once (still editable). Without it the server fills what was left
// empty from the site picked (SiteChoice.fill).
import { wireChoice } from './core/sites.js';

function start() {
  const fieldset = document.getElementById('site-choice');
  const form = document.getElementById('submit-form');
  if (fieldset && form) wireChoice(fieldset, form);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
