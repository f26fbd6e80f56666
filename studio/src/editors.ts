/**
 * The two code editors (CodeMirror 6): the HTML / Handlebars source and the
 * template data as JSON, with highlighting, search, undo and, for JSON, the
 * parse error shown inline.
 */
import { html } from '@codemirror/lang-html';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { linter, lintGutter } from '@codemirror/lint';
import { EditorView, basicSetup } from 'codemirror';
import { EditorState, type Extension } from '@codemirror/state';

export type CodeEditor = {
  view: EditorView;
  get: () => string;
  set: (text: string) => void;
};

/** Whether an update came from the user (set() marks its own changes so they do not count as edits). */
const programmatic = 'docrender.set';

function codeEditor(parent: HTMLElement, labelledBy: string, language: Extension[], onChange: () => void, wrap = false, initial = ''): CodeEditor {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: initial,
      extensions: [
        basicSetup,
        ...(wrap ? [EditorView.lineWrapping] : []),
        // The page's CSP allows inline style only with this response's nonce (lib/studio/studio-assets.ts).
        EditorView.cspNonce.of(document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? ''),
        ...language,
        // No Tab binding (basicSetup has none): Tab moves focus on, so the page stays keyboard-usable.
        // Ctrl+S reaches the page's own handler (main.ts), which saves.
        EditorView.contentAttributes.of({ 'aria-labelledby': labelledBy }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((tr) => tr.isUserEvent(programmatic))) onChange();
        }),
      ],
    }),
  });
  return {
    view,
    get: () => view.state.doc.toString(),
    set: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: programmatic }),
  };
}

/** The HTML / Handlebars editor. */
export function htmlEditor(parent: HTMLElement, labelledBy: string, onChange: () => void): CodeEditor {
  return codeEditor(parent, labelledBy, [html()], onChange, true);
}

/** The templateData editor: JSON, its parse errors marked as you type. */
export function jsonEditor(parent: HTMLElement, labelledBy: string, onChange: () => void): CodeEditor {
  // Starts as valid JSON, so the linter has nothing to mark before a template is opened.
  return codeEditor(parent, labelledBy, [json(), linter(jsonParseLinter(), { delay: 300 }), lintGutter()], onChange, false, '{}');
}
