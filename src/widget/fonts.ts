/**
 * A font at a size and weight is a "strike", and the first text a page lays out in a new strike
 * asks for its data: on Linux Chromium a synchronous round trip to the browser process (its render
 * style, and for a glyph the font lacks, a fallback font): 2-40 ms each on a 2-core machine. A
 * widget's first run shows text in strikes the page had not used (the line counts, the variables'
 * names and badges, the outcome): 5-8 of them and a fallback for ⟲ in one layout, 110-240 ms of the
 * frame that drew the first result. Laid out here once, hidden, one strike a task while the page is
 * idle (Python starting in its worker), the first run finds them all made.
 *
 * Each specimen is a widget element in the classes the widget uses, so the stylesheet gives it the
 * same font; e2e/fonts.spec.ts checks that what a run, a debug session and the panels show is all
 * in strikes the page had before the first run.
 */
const SPECIMENS = [
  // the code pane's gutters: how often each line ran (0 in bold), a line with a breakpoint
  '<div class="sl-code"><div class="sl-count-gutter"><div class="cm-gutterElement"><span class="sl-count">#</span></div></div></div>',
  '<div class="sl-code"><div class="sl-count-gutter"><div class="cm-gutterElement"><span class="sl-count sl-count-zero">#</span></div></div></div>',
  '<div class="sl-code"><div class="cm-lineNumbers"><div class="cm-gutterElement sl-has-bp">#</div></div></div>',
  // the variables: a name, its value's note, the changed badge, shared-with, the history button
  '<ul class="sl-vars"><li><span class="sl-name">#</span> <span class="sl-note">#</span></li></ul>',
  '<ul class="sl-vars"><li><span class="sl-badge">#</span></li></ul>',
  '<ul class="sl-vars"><li><span class="sl-shared">#</span></li></ul>',
  '<ul class="sl-vars"><li><button type="button" class="sl-var-history">#</button></li></ul>',
  '<ul class="sl-vars"><li><details class="sl-value"><summary>#</summary></details></li></ul>',
  // the output's outcome (a value under a bold label) and an error
  '<div class="sl-outcome"><strong>#</strong> <details class="sl-value"><summary><span class="sl-name">#</span> #</summary></details></div>',
  '<p class="sl-error">#</p>',
  // the status line's warning, the step and breakpoint line
  '<p class="sl-status"><span class="sl-warning">#</span></p>',
  '<div class="sl-scrub">#</div>',
  // the panels: headings, history, call stack, tabs, comparison, prediction, flow diagram
  '<div class="sl-panel"><h4>#</h4><p class="sl-empty">#</p></div>',
  '<div class="sl-history"><button type="button">#</button></div>',
  '<ol class="sl-stack"><li><button type="button">#<span class="sl-where">#</span></button></li></ol>',
  '<ol class="sl-stack"><li><button type="button" aria-current="true">#<span class="sl-where">#</span></button></li></ol>',
  '<div class="sl-tabs"><button type="button">#</button><button type="button" aria-selected="true">#</button></div>',
  '<div class="sl-compare">#</div>',
  '<div class="sl-predict"><span class="sl-right">#</span></div>',
  '<ol class="sl-diagram"><li><span class="sl-step">#</span></li><li data-state="current"><span class="sl-step">#</span></li></ol>',
  '<p class="sl-diagram-note">#</p><p class="sl-diagram-line">#</p>',
];

/** Latin, digits and the widget's symbols; and CJK on a Chinese page (its fallback font's strikes). */
const sampleText = (lang: string) => `Aa0 = ×⟲↺…→◀·≥${lang.startsWith('zh') ? ' 变量运行' : ''}`;

let warmed = false;

/**
 * Lay out the specimens one a task, hidden, beside `widget` (in the document's body, or in the
 * widget's shadow root, where its stylesheet applies). Once a page: strikes are the page's.
 */
export function warmFonts(widget: Element, lang: string) {
  if (warmed) return;
  warmed = true;
  const root = widget.getRootNode();
  const into = root instanceof ShadowRoot ? root : document.body;
  const host = document.createElement('div');
  host.className = 'sl-font-specimens';
  host.setAttribute('aria-hidden', 'true');
  into.append(host);
  const text = sampleText(lang);
  let k = 0;
  const next = () => {
    const box = document.createElement('div');
    box.innerHTML = SPECIMENS[k++]!.replaceAll('#', text);
    host.append(box);
    void box.offsetHeight; // laid out now, in this task
    if (k < SPECIMENS.length) setTimeout(next);
    else host.dataset.warmed = String(k);
  };
  setTimeout(next);
}
