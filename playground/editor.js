// The playground's editor: CodeMirror 6 with @codemirror/lang-python on the patched
// @lezer/python grammar (ecosystem/patched/lezer-python: `=>` is its LateAssignOp token,
// styled as the definition operator an early default's `=` is). tools/playground.py
// bundles this file with playground.js by esbuild, with "@lezer/python" aliased to the
// patched build, so that CodeMirror's Python mode and the hook below share one parser.

import {EditorView, basicSetup} from "codemirror"
import {Decoration, keymap} from "@codemirror/view"
import {Compartment, EditorSelection, Prec, StateEffect, StateField} from "@codemirror/state"
import {indentWithTab} from "@codemirror/commands"
import {HighlightStyle, ensureSyntaxTree, indentUnit, syntaxHighlighting} from "@codemirror/language"
import {forEachDiagnostic, lintGutter, setDiagnostics} from "@codemirror/lint"
import {tags} from "@lezer/highlight"
import {python} from "@codemirror/lang-python"
import {oneDark} from "@codemirror/theme-one-dark"

// The lines of the user's code that the last run's error points at: a line decoration
// (a tinted background) beside the lint diagnostic (the underline and its tooltip).
const markErrors = StateEffect.define()
const errorLines = StateField.define({
  create: () => Decoration.none,
  update(lines, tr) {
    lines = lines.map(tr.changes)
    for (const effect of tr.effects) if (effect.is(markErrors)) lines = effect.value
    // editing the code takes the marks away: they are about the code that ran
    return tr.docChanged ? Decoration.none : lines
  },
  provide: (field) => EditorView.decorations.from(field),
})
const errorLine = Decoration.line({class: "cm-pep671-error-line"})

const lightTheme = [
  EditorView.theme({
    "&": {backgroundColor: "#fff"},
    ".cm-pep671-error-line": {backgroundColor: "#fde7e9"},
  }),
  // basicSetup's default style leaves operators plain: the `=` or `=>` that binds a
  // parameter's default (definitionOperator) stands out here, as in the dark theme
  syntaxHighlighting(HighlightStyle.define([
    {tag: tags.definitionOperator, color: "#a626a4", fontWeight: "bold"},
  ])),
]
const darkTheme = EditorView.theme({
  ".cm-pep671-error-line": {backgroundColor: "#5a1d24"},
}, {dark: true})

// Light or dark as the system is (prefers-color-scheme), and again when it changes.
function colorScheme(view, compartment) {
  const query = window.matchMedia("(prefers-color-scheme: dark)")
  const pick = () => query.matches ? [oneDark, darkTheme] : [lightTheme]
  query.addEventListener("change", () => view.dispatch({effects: compartment.reconfigure(pick())}))
  return pick()
}

export function createEditor(parent, {onRun, onChange = () => {}}) {
  const scheme = new Compartment()
  const view = new EditorView({
    parent,
    extensions: [
      // Ctrl+Enter (Cmd+Enter on a Mac) runs, before basicSetup's keymap sees Enter
      Prec.highest(keymap.of([{key: "Mod-Enter", run: () => { onRun(); return true }}])),
      basicSetup,                       // line numbers, Enter indents, brackets, search...
      keymap.of([indentWithTab]),
      python(),
      indentUnit.of("    "),
      lintGutter(),
      errorLines,
      scheme.of([]),
      EditorView.contentAttributes.of({"aria-label": "code"}),
      EditorView.updateListener.of((update) => { if (update.docChanged) onChange() }),
    ],
  })
  view.dispatch({effects: scheme.reconfigure(colorScheme(view, scheme))})
  return view
}

export function getCode(view) {
  return view.state.doc.toString()
}

export function setCode(view, text) {
  view.dispatch({
    changes: {from: 0, to: view.state.doc.length, insert: text},
    selection: EditorSelection.cursor(0),
    scrollIntoView: true,
  })
}

// Where (1-based line and column) an offset of the code is.
function lineColumn(doc, offset) {
  const line = doc.lineAt(offset)
  return {line: line.number, column: offset - line.from + 1}
}

// The offsets of a 1-based line and column (clamped to the code), and of the end of the
// mark: endColumn, or the rest of the line from column.
function span(doc, {line, column, endColumn}) {
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines))
  const clamp = (c) => l.from + Math.min(Math.max(c - 1, 0), l.length)
  if (!column) {
    const indent = l.text.length - l.text.trimStart().length
    return {line: l, from: l.from + indent, to: l.to}
  }
  const from = clamp(column)
  let to = endColumn && endColumn > column ? clamp(endColumn) : l.to
  return {line: l, from, to: Math.max(to, from)}
}

// Marks errors ([{line, column?, endColumn?, message}]) in the code; [] takes them away.
export function showErrors(view, errors) {
  const doc = view.state.doc
  const diagnostics = [], lines = []
  for (const error of errors) {
    const {line, from, to} = span(doc, error)
    diagnostics.push({from, to, severity: "error", message: error.message, source: "python"})
    lines.push(errorLine.range(line.from))
  }
  lines.sort((a, b) => a.from - b.from)
  view.dispatch(setDiagnostics(view.state, diagnostics),
                {effects: markErrors.of(Decoration.set(lines, true))})
}

// The marked errors, as the test hook reports them.
export function markedErrors(view) {
  const found = []
  view.state.field(errorLines).between(0, view.state.doc.length, (from) => {
    found.push(lineColumn(view.state.doc, from).line)
  })
  return found
}

// Puts the cursor at a 1-based line (and column) and shows it.
export function moveTo(view, position) {
  const {from} = span(view.state.doc, position)
  view.dispatch({selection: EditorSelection.cursor(from), scrollIntoView: true})
  view.focus()
}

// The lint diagnostics shown: [{line, column, endColumn, message}], 1-based.
export function diagnostics(view) {
  const found = []
  forEachDiagnostic(view.state, (d, from, to) => {
    const start = lineColumn(view.state.doc, from)
    found.push({...start, endColumn: start.column + (to - from), message: d.message})
  })
  return found
}

export function cursor(view) {
  return lineColumn(view.state.doc, view.state.selection.main.head)
}

// The syntax tree of the whole code, parsed to its end: its error nodes (as line and
// column), and how many late defaults (LateAssignOp, the `=>` of the patched grammar)
// and early ones (AssignOp in a parameter list) it holds.
export function syntaxReport(view) {
  const tree = ensureSyntaxTree(view.state, view.state.doc.length, 10_000)
  if (!tree) throw new Error("the code did not finish parsing")
  const errors = [], counts = {late: 0, early: 0}
  tree.iterate({enter(node) {
    if (node.type.isError) {
      const {line, column} = lineColumn(view.state.doc, node.from)
      errors.push([line, column])
    } else if (node.name === "LateAssignOp") counts.late++
    else if (node.name === "AssignOp" && node.node.parent?.name === "ParamList") counts.early++
  }})
  return {errors, ...counts}
}
