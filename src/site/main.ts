/** Entry: start Python first, so Pyodide downloads while the page's own code loads and renders. */
import { pageEngine } from '../runtime/client';

pageEngine();
void import('./boot');
