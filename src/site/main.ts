/**
 * Entry: on a lesson page, start Python first, so Pyodide downloads while the page's own code
 * loads and renders. A page with no widget (the index) never starts it: a reader browsing the
 * list of lessons on a phone does not download 5 MB for nothing. If `?lang=` sends the reader to
 * the other locale's page, that page is left at once (before a worker or a download starts).
 */
import { lessonIdOf, otherLocalePage } from './locale';

const base = import.meta.env.BASE_URL;
const away = otherLocalePage(location, base);
if (away) location.replace(away);
else
  // The rest in tasks of their own (#13: no task over 50 ms while the page loads): this module
  // runs in the task in which the page's parsing ends, where Chromium may also lay out the rest of
  // the article (20-100 ms here), so it runs as little as it can.
  setTimeout(() => {
    if (lessonIdOf(location.pathname, base) !== undefined) void import('../runtime/client').then(({ pageEngine }) => pageEngine());
    // React DOM is evaluated in a task of its own, then the page's code: as one module graph they
    // took one task of 50-105 ms on a 2-core machine while Python started beside them
    void import('react-dom/client')
      .then(() => new Promise((resolve) => setTimeout(resolve)))
      .then(() => import('./boot'));
  });
