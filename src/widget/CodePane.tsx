import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useEffect, useRef, useState } from 'react';
import { codeView, scrollToLine, setMarks, type Marks } from './codeview';

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

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({ doc: code, extensions: codeView({ firstLine, label, toggle: (line) => toggleRef.current(line) }) }),
    });
    view.current = editor;
    setMounted(true);
    return () => editor.destroy();
  }, [code, firstLine, label]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    editor.dispatch({ effects: setMarks.of(marks) });
    if (marks.current !== undefined) scrollToLine(editor, marks.current, firstLine, coveredTop?.() ?? 0);
  }, [marks.breakpoints.join(','), marks.current, marks.previous, marks.atBreakpoint, String(marks.counts), String(marks.onlyHere), String(marks.onlyThere), firstLine, code]);

  // Before the editor mounts (and in prerendered HTML) the code is a plain listing.
  return (
    <div className="sl-code">
      <div ref={host} />
      {!mounted && (
        <pre className="sl-static-code" aria-label={label}>
          {code.split('\n').map((text, i) => (
            <span key={i} className="sl-listing-line">
              <span className="sl-ln">{i + firstLine}</span>
              {text}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </div>
  );
}
