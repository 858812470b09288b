/**
 * The read-only CodeMirror view of a widget's function, as extensions over immutable state:
 * real file line numbers, a breakpoint gutter, current and just-run line highlights, F9.
 */
import { pythonLanguage } from '@codemirror/lang-python';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { Compartment, EditorState, RangeSet, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, GutterMarker, ViewPlugin, gutter, gutterLineClass, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers, type DecorationSet, type ViewUpdate } from '@codemirror/view';
import { indentColumns } from './indent';

export interface Marks {
  breakpoints: number[];
  /** File line numbers. */
  current?: number;
  previous?: number;
  /** Whether the current line is at a breakpoint hit. */
  atBreakpoint?: boolean;
  /** After a run: how many times each line that can run ran ([line, count]; 0 for never). */
  counts?: [number, number][];
  /** Comparing with another scenario: lines reached only in this run, and only in the other. */
  onlyHere?: number[];
  onlyThere?: number[];
}

/** Syntax colours from CSS variables, so light and dark themes both keep WCAG AA contrast. */
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.definitionKeyword, tags.operatorKeyword, tags.moduleKeyword], color: 'var(--sl-hl-keyword)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--sl-hl-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--sl-hl-number)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--sl-hl-comment)', fontStyle: 'italic' },
  { tag: [tags.function(tags.variableName), tags.function(tags.definition(tags.variableName)), tags.definition(tags.variableName)], color: 'var(--sl-hl-function)' },
  { tag: [tags.className, tags.definition(tags.className)], color: 'var(--sl-hl-class)' },
  { tag: tags.self, color: 'var(--sl-hl-keyword)' },
]);

export const setMarks = StateEffect.define<Marks>();

const marksField = StateField.define<Marks>({
  create: () => ({ breakpoints: [] }),
  update: (value, tr) => tr.effects.reduce((v, e) => (e.is(setMarks) ? e.value : v), value),
});

class BreakpointMarker extends GutterMarker {
  override toDOM() {
    const dot = document.createElement('span');
    dot.className = 'sl-bp-dot';
    dot.setAttribute('aria-hidden', 'true');
    return dot;
  }
}
const breakpointMarker = new BreakpointMarker();
class CountMarker extends GutterMarker {
  constructor(
    readonly count: number,
    readonly line: number,
  ) {
    super();
  }
  override eq(other: CountMarker) {
    return other.count === this.count && other.line === this.line;
  }
  override toDOM() {
    const el = document.createElement('span');
    el.className = this.count ? 'sl-count' : 'sl-count sl-count-zero';
    el.textContent = this.count ? `${this.count}×` : '0';
    el.dataset.count = String(this.count);
    el.dataset.line = String(this.line);
    return el;
  }
}

class LineClass extends GutterMarker {
  constructor(override elementClass: string) {
    super();
  }
}
const bpLineClass = new LineClass('sl-has-bp');
const currentLineClass = new LineClass('sl-gutter-current');

export function codeView(options: { firstLine: number; label: string; toggle: (fileLine: number) => void }): Extension {
  const offset = options.firstLine - 1;
  const toFile = (state: EditorState, pos: number) => state.doc.lineAt(pos).number + offset;
  const linesOf = (state: EditorState, lines: number[]) => {
    const doc = state.doc;
    return lines.filter((l) => l - offset >= 1 && l - offset <= doc.lines).map((l) => doc.line(l - offset).from);
  };
  const toggleAt = (view: EditorView, pos: number) => {
    options.toggle(toFile(view.state, pos));
    return true;
  };
  const decorations = EditorView.decorations.compute([marksField], (state): DecorationSet => {
    const m = state.field(marksField);
    const ranges = [];
    const [prev] = m.previous !== undefined && m.previous !== m.current ? linesOf(state, [m.previous]) : [];
    const [cur] = m.current !== undefined ? linesOf(state, [m.current]) : [];
    if (prev !== undefined) ranges.push({ from: prev, deco: Decoration.line({ class: 'sl-just-ran' }) });
    if (cur !== undefined) ranges.push({ from: cur, deco: Decoration.line({ class: m.atBreakpoint ? 'sl-current sl-current-bp' : 'sl-current', attributes: { 'data-current': 'true' } }) });
    for (const from of linesOf(state, m.onlyHere ?? [])) ranges.push({ from, deco: Decoration.line({ class: 'sl-only-here', attributes: { 'data-only': 'here' } }) });
    for (const from of linesOf(state, m.onlyThere ?? [])) ranges.push({ from, deco: Decoration.line({ class: 'sl-only-there', attributes: { 'data-only': 'there' } }) });
    ranges.sort((a, b) => a.from - b.from);
    return Decoration.set(ranges.map((r) => r.deco.range(r.from)));
  });
  const gutterClasses = gutterLineClass.compute([marksField], (state) => {
    const m = state.field(marksField);
    const marks = [...linesOf(state, m.breakpoints).map((from) => bpLineClass.range(from)), ...linesOf(state, m.current !== undefined ? [m.current] : []).map((from) => currentLineClass.range(from))];
    return RangeSet.of(marks, true);
  });
  return [
    marksField,
    EditorState.readOnly.of(true),
    EditorView.contentAttributes.of({ 'aria-label': options.label, 'aria-readonly': 'true' }),
    gutter({
      class: 'sl-bp-gutter',
      markers: (view) => RangeSet.of(linesOf(view.state, view.state.field(marksField).breakpoints).map((from) => breakpointMarker.range(from)), true),
      initialSpacer: () => breakpointMarker,
      domEventHandlers: { mousedown: (view, block) => toggleAt(view, block.from) },
    }),
    gutter({
      class: 'sl-count-gutter',
      markers: (view) => {
        const counts = view.state.field(marksField).counts ?? [];
        const starts = linesOf(view.state, counts.map(([line]) => line));
        const byLine = new Map(counts.map(([line, n]) => [line, n]));
        return RangeSet.of(
          starts.map((from) => {
            const line = view.state.doc.lineAt(from).number + offset;
            return new CountMarker(byLine.get(line) ?? 0, line).range(from);
          }),
          true,
        );
      },
    }),
    lineNumbers({
      formatNumber: (n) => String(n + offset),
      domEventHandlers: { mousedown: (view, block) => toggleAt(view, block.from) },
    }),
    gutterClasses,
    highlightActiveLine(),
    highlightActiveLineGutter(),
    decorations,
    keymap.of([{ key: 'F9', run: (view) => toggleAt(view, view.state.selection.main.head), preventDefault: true }]),
    pythonLanguage, // the grammar alone: a read-only view has no use for python()'s completions
    syntaxHighlighting(highlight),
    wrapping.of(wrapped),
    wrapWhenWide,
    boxScroll,
    EditorView.theme({
      '&': { fontSize: '14px' },
      '.cm-content': { fontFamily: 'var(--sl-mono)' },
      '.cm-gutters': { fontFamily: 'var(--sl-mono)' },
    }),
  ];
}

/**
 * CodeMirror reads the page's selection after every update while the page has none (its record of
 * the DOM selection then has no focus node), and once as each view is made; reading a Selection
 * makes the browser lay out the page there and then: the page's fresh style and layout in the
 * middle of every step, ~1.6 ms a step and up to 60 ms for a fresh page's first (Chromium; a reader
 * tapping buttons has no selection). An editable view that does not have focus does nothing with
 * what it reads (updateSelection returns, so does onSelectionChange), and once the reader has
 * clicked into the code CodeMirror itself stops reading until its record is cleared; so views read
 * the selection only while their content has focus (on focus CodeMirror reads it again before
 * using it). This patches the class of the views' DOM observers, once, from the first view made
 * (the warm-up's, off the page, which reads nothing): not public API, the version is pinned; where
 * it is not there, nothing is changed.
 */
let observersPatched = false;
function readSelectionOnlyWhenFocused(view: EditorView) {
  if (observersPatched) return;
  observersPatched = true;
  type Observer = { view?: EditorView; readSelectionRange?: () => boolean };
  const observer = (view as unknown as { observer?: Observer }).observer;
  const proto = observer && (Object.getPrototypeOf(observer) as Observer);
  const read = proto?.readSelectionRange;
  if (!proto || typeof read !== 'function' || observer.view !== view) return;
  proto.readSelectionRange = function (this: Observer) {
    const v = this.view;
    return !!v && v.root.activeElement === v.contentDOM && read.call(this);
  };
}

/**
 * A hanging indent: a wrapped line continues under its own first character, plus one level, so
 * Python's visible indentation survives narrow screens (docstrings, long f-strings, phones).
 */
const hangingIndent = EditorView.decorations.compute(['doc'], (state): DecorationSet => {
  const ranges = [];
  for (let n = 1; n <= state.doc.lines; n++) {
    const line = state.doc.line(n);
    const indent = indentColumns(line.text);
    ranges.push(Decoration.line({ attributes: { style: `padding-left: calc(${indent + 4}ch + 6px); text-indent: -${indent + 4}ch` } }).range(line.from));
  }
  return Decoration.set(ranges);
});

/**
 * Wide enough (≥ 40 columns of code): long lines wrap with a hanging indent. Narrower (a phone):
 * lines keep their shape and the code scrolls sideways, as deep Python indentation wrapped into 20
 * columns is unreadable.
 */
const wrapped: Extension = [EditorView.lineWrapping, hangingIndent];
const wrapping = new Compartment();
const WRAP_COLUMNS = 40;
const wrapWhenWide = ViewPlugin.define((view) => {
  const apply = () => {
    if (!view.dom.isConnected) return;
    const columns = view.scrollDOM.clientWidth / Math.max(1, view.defaultCharacterWidth) - 6; // minus the gutters
    const now = wrapping.get(view.state) === wrapped;
    const wrap = now ? columns >= WRAP_COLUMNS - 2 : columns >= WRAP_COLUMNS; // a margin, so a scrollbar cannot make it flip back and forth
    if (wrap !== now) view.dispatch({ effects: wrapping.reconfigure(wrap ? wrapped : []) });
  };
  // the box's width changes, and so does the character width once the font has loaded
  const observer = new ResizeObserver(() => apply());
  observer.observe(view.scrollDOM);
  return {
    update: (update) => void (update.geometryChanged && queueMicrotask(apply)),
    destroy: () => observer.disconnect(),
  };
});

/**
 * Whether the code scrolls in its own box (narrow screens) or with the page, as CodeMirror's last
 * measure found it: a step asks without making the browser lay the page out in the middle of it.
 */
const scrollsOwnBox = (view: EditorView) => {
  const s = view.scrollDOM;
  return s.scrollHeight > s.clientHeight + 1 || s.scrollWidth > s.clientWidth + 1;
};
const boxScroll = ViewPlugin.fromClass(
  class {
    own: boolean | undefined = undefined;
    readonly measure = {
      read: scrollsOwnBox,
      write: (own: boolean) => void (this.own = own),
    };
    constructor(view: EditorView) {
      view.requestMeasure(this.measure);
    }
    update(update: ViewUpdate) {
      if (update.geometryChanged) update.view.requestMeasure(this.measure);
    }
  },
);

/**
 * Show the marks, in one transaction, and bring the current line into sight. When the code scrolls
 * in its own box only that box moves, never the page: if the line is not already in the part of the
 * box the reader can see (on screen, below `coveredTop()` px of sticky controls), it is centred
 * there, and the box scrolls sideways to the line's first character. Otherwise the page scrolls the
 * least it can. Layout is read only in CodeMirror's measure phase.
 */
export function showMarks(view: EditorView, marks: Marks, firstLine: number, coveredTop: () => number = () => 0) {
  const n = marks.current === undefined ? 0 : marks.current - firstLine + 1;
  const line = n >= 1 && n <= view.state.doc.lines ? view.state.doc.line(n) : undefined;
  const own = view.plugin(boxScroll)?.own ?? scrollsOwnBox(view); // not measured yet: asked now
  view.dispatch({ effects: line && !own ? [setMarks.of(marks), EditorView.scrollIntoView(line.from, { y: 'nearest' })] : setMarks.of(marks) });
  if (line && own) scrollBoxTo(view, line, coveredTop);
}

function scrollBoxTo(view: EditorView, line: { from: number; text: string }, coveredTop: () => number) {
  const scroller = view.scrollDOM;
  view.requestMeasure({
    key: scroller, // one pending scroll per box: the last step's
    read: () => {
      const box = scroller.getBoundingClientRect();
      const top = Math.max(box.top, coveredTop());
      const bottom = Math.min(box.bottom, window.innerHeight);
      // the visible part of the box, in the box's own coordinates (all of it if too little is on screen)
      const seen = bottom - top > 60 ? { from: top - box.top, to: bottom - box.top } : { from: 0, to: scroller.clientHeight };
      const block = view.lineBlockAt(line.from);
      // where the line is now, in the box's coordinates
      const at = { top: view.documentTop + block.top - box.top, height: block.height };
      const ch = view.defaultCharacterWidth;
      const width = scroller.clientWidth - ((scroller.querySelector('.cm-gutters') as HTMLElement | null)?.offsetWidth ?? 0);
      const indent = indentColumns(line.text) * ch; // a tab as four, as the editor draws it
      // sideways only when the statement's start would not show: the outer lines keep their context
      const left = indent + 12 * ch > width ? indent - 2 * ch : 0;
      return { at, seen, scrollTop: scroller.scrollTop, left };
    },
    write: ({ at, seen, scrollTop, left }) => {
      if (at.top < seen.from || at.top + at.height > seen.to) scroller.scrollTop = scrollTop + at.top + at.height / 2 - (seen.from + seen.to) / 2;
      if (scroller.scrollWidth > scroller.clientWidth + 1) scroller.scrollLeft = left;
    },
  });
}

/** The state of a read-only code view of `code` (its grammar's first parse happens here). */
export function editorState(code: string, options: Parameters<typeof codeView>[0]): EditorState {
  return EditorState.create({ doc: code, extensions: codeView(options) });
}

/** A read-only code view of a state from `editorState`, in `parent` (CodePane loads this module, and CodeMirror, on its own). */
export function openEditor(parent: HTMLElement, state: EditorState): EditorView {
  const view = new EditorView({ parent, state });
  readSelectionOnlyWhenFocused(view);
  return view;
}

/**
 * Make and drop a small editor off the page, its state in one task and its view in the next, so the
 * first pane's editor does not also compile CodeMirror (and its views' observers get patched first).
 */
export async function warmUp(nextTask: () => Promise<unknown>) {
  const state = editorState('def f(x):\n    return [x, {"k": 1}]\n', { firstLine: 1, label: '', toggle: () => {} });
  await nextTask();
  const view = openEditor(document.createElement('div'), state);
  // and what a first run shows in it (counts, the current and previous line, a breakpoint hit,
  // a comparison's lines): that code compiled too, the first run's frame held 50-90 ms less
  await nextTask();
  showMarks(view, { breakpoints: [2], current: 2, previous: 1, atBreakpoint: true, counts: [[1, 1], [2, 0]], onlyHere: [1], onlyThere: [2] }, 1);
  view.destroy();
}
