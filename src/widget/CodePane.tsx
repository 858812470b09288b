import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { codeView, scrollToLine, setMarks, type Marks } from './codeview';

interface Props {
  code: string;
  firstLine: number;
  label: string;
  marks: Marks;
  toggle: (line: number) => void;
}

/** A thin React shell around one EditorView; marks go in as transactions. */
export function CodePane({ code, firstLine, label, marks, toggle }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const toggleRef = useRef(toggle);
  toggleRef.current = toggle;

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({ doc: code, extensions: codeView({ firstLine, label, toggle: (line) => toggleRef.current(line) }) }),
    });
    view.current = editor;
    return () => editor.destroy();
  }, [code, firstLine, label]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    editor.dispatch({ effects: setMarks.of(marks) });
    if (marks.current !== undefined) scrollToLine(editor, marks.current, firstLine);
  }, [marks.breakpoints.join(','), marks.current, marks.previous, marks.atBreakpoint, firstLine, code]);

  return <div className="sl-code" ref={host} />;
}
