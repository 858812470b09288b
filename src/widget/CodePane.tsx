import type { EditorView } from '@codemirror/view';
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import type { Marks } from './codeview';
import { indentColumns } from './indent';

/**
 * CodeMirror (with the Python grammar) is a module of its own, loaded and evaluated when the first
 * pane asks: until then the pane shows its listing, and the page's own code starts without it.
 */
type CodeView = typeof import('./codeview');
let loading: Promise<CodeView> | null = null;
/** The module once loaded (what the marks are made with). */
let loaded: CodeView | null = null;
const nextTask = () => new Promise((resolve) => setTimeout(resolve));
const codeViewModule = () =>
  // CodeMirror's view and state first, then the rest (the Python grammar, our extensions): each
  // chunk is evaluated in a task of its own (as one chunk they took 25-52 ms of one task)
  (loading ??= import('@codemirror/view').then(nextTask).then(() => import('./codeview')).then(
    async (module) => {
      // The first editor made also compiles CodeMirror's code: 55-95 ms in one task on a 2-core
      // machine. A small editor made and dropped, in two tasks of their own, takes that, and then
      // each pane's editor takes 13-36 ms.
      await nextTask();
      await module.warmUp(nextTask);
      await nextTask();
      return (loaded = module);
    },
    (error: unknown) => {
      loading = null; // the next pane to mount tries again; this one keeps its listing
      throw error;
    },
  ));

interface Props {
  code: string;
  firstLine: number;
  label: string;
  marks: Marks;
  toggle: (line: number) => void;
  /** How far down the window sticky controls cover the page (px), so the current line is not put under them. */
  coveredTop?: () => number;
}

/** A thin React shell around one EditorView; marks go in as transactions. */
export function CodePane({ code, firstLine, label, marks, toggle, coveredTop }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const [mounted, setMounted] = useState(false);
  const toggleRef = useRef(toggle);
  toggleRef.current = toggle;

  // Each editor is made in tasks of its own (its state and first parse, then its view), after the
  // commit that placed its listing: a page's editors made in one go held the main thread for 200+
  // ms while the page loaded.
  useEffect(() => {
    let editor: EditorView | null = null;
    let gone = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void codeViewModule().then((module) => {
      if (gone) return;
      timer = setTimeout(() => {
        const state = module.editorState(code, { firstLine, label, toggle: (line) => toggleRef.current(line) });
        timer = setTimeout(() => {
          editor = view.current = module.openEditor(host.current!, state);
          setMounted(true);
        });
      });
    }, () => {}); // not loaded (offline?): the listing stays, readable
    return () => {
      gone = true;
      clearTimeout(timer);
      editor?.destroy();
      view.current = null;
      setMounted(false); // the listing again until the next editor is made (and then the marks)
    };
  }, [code, firstLine, label]);

  useEffect(() => {
    const editor = view.current;
    if (!editor || !loaded) return;
    loaded.showMarks(editor, marks, firstLine, coveredTop);
  }, [marks.breakpoints.join(','), marks.current, marks.previous, marks.atBreakpoint, String(marks.counts), String(marks.onlyHere), String(marks.onlyThere), firstLine, code, mounted]);

  // Before the editor mounts (and in prerendered HTML) the code is a plain listing.
  return (
    <div className="sl-code">
      <div ref={host} />
      {!mounted && (
        <pre className="sl-static-code" aria-label={label} tabIndex={0 /* it scrolls sideways: keyboard readers too */}>
          {code.split('\n').map((text, i) => (
            // laid out as the editor lays out its lines (styles.css), so its arrival moves nothing
            <span key={i} className="sl-listing-line" style={{ '--indent': indentColumns(text) } as CSSProperties}>
              <span className="sl-ln">{i + firstLine}</span>
              <span className="sl-listing-text">{text}</span>
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}
