/**
 * Entry: on a lesson page, start Python first, so Pyodide downloads while the page's own code
 * loads and renders. A page with no widget (the index) never starts it: a reader browsing the
 * list of lessons on a phone does not download 5 MB for nothing. If `?lang=` sends the reader to
 * the other locale's page, that page is left at once (before a worker or a download starts).
 */
import { pageEngine } from '../runtime/client';
import { lessonIdOf, otherLocalePage } from './locale';

const base = import.meta.env.BASE_URL;
const away = otherLocalePage(location, base);
if (away) location.replace(away);
else {
  if (lessonIdOf(location.pathname, base) !== undefined) pageEngine();
  void import('./boot');
}
