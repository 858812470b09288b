/**
 * Entry: start Python first, so Pyodide downloads while the page's own code loads and renders —
 * unless `?lang=` sends the reader to the other locale's page, which is then left at once (before
 * a worker or a download starts for nothing).
 */
import { pageEngine } from '../runtime/client';
import { otherLocalePage } from './locale';

const away = otherLocalePage(location, import.meta.env.BASE_URL);
if (away) location.replace(away);
else {
  pageEngine();
  void import('./boot');
}
