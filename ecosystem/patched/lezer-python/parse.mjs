// What the probe (probe.py) and the tests (run_tests.py) of ecosystem/patched/lezer-python
// run under Node.js, beside a node_modules that holds @lezer/highlight (build.py puts it
// and this file into the venv's share/lezer-python/). Each mode prints one JSON object.
//
//   node parse.mjs corpus DIST MANIFEST
//     each file of MANIFEST parsed by DIST/index.js: its error nodes, its LateAssignOp
//     nodes, and the highlighting (the parser's styleTags) of each late default's "=>"
//     and of each early default's "=";
//   node parse.mjs rewritten DIST MANIFEST
//     each file of MANIFEST with defaults parsed as it is and with each early default's
//     "=" written "=>": the trees must be the same, the LateAssignOp of a rewritten
//     default read as the AssignOp it was (same offsets once the ">" is taken out);
//   node parse.mjs compare STOCK_DIST PATCHED_DIST MANIFEST
//     each file of MANIFEST parsed by the patched parser as it is, and by the stock one
//     with each late default's "=>" written "= ": the trees must be the same, the
//     LateAssignOp of a late default read as an AssignOp of one character.
//
// MANIFEST (written by probe.py's defaults script, from the interpreter's ast): {"root":
// DIR, "files": [path relative to DIR, ...], "defaults": {path: [[offset of each early
// default's "="], [offset of each late default's "=>"]]}}, offsets in UTF-16 code units.

import {readFileSync} from "fs"
import {join} from "path"
import {pathToFileURL} from "url"
import {Tag, highlightTree, tagHighlighter, tags} from "@lezer/highlight"

async function parserOf(dist) {
  return (await import(pathToFileURL(join(dist, "index.js")).href)).parser
}

function readManifest(path) {
  let manifest = JSON.parse(readFileSync(path, "utf8"))
  return {...manifest, text: file => readFileSync(join(manifest.root, file), "utf8")}
}

// Every node of a tree as [name, from, to], in document order; and its error nodes.
function flatten(tree, rename = null, shift = null) {
  let nodes = [], errors = []
  tree.iterate({enter(node) {
    let name = node.name, from = node.from, to = node.to
    if (node.type.isError) errors.push(from)
    if (shift) { from = shift(from); to = shift(to) }
    if (rename) [name, to] = rename(name, from, to)
    nodes.push(`${name}@${from}-${to}`)
  }})
  return {nodes, errors}
}

function firstDifference(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) return `${a[i] ?? "(end)"} where ${b[i] ?? "(end)"}`
  return null
}

function lineColumn(text, offset) {
  let before = text.slice(0, offset).split("\n")
  return [before.length, before[before.length - 1].length + 1]
}

// Each standard tag by its name (definitionOperator, compareOperator, ...): the most
// specific one a token has is its class.
const highlighter = tagHighlighter(Object.entries(tags)
  .filter(([, tag]) => tag instanceof Tag).map(([name, tag]) => ({tag, class: name})))

function highlightAt(tree, from, to) {
  let found = []
  highlightTree(tree, highlighter, (start, end, cls) => {
    if (start < to && end > from) found.push(`${cls}@${start - from}`)
  }, from, to)
  return found.join(" ") || "(none)"
}

function corpus(parser, manifest) {
  let files = {}
  for (let file of manifest.files) {
    let text = manifest.text(file), tree = parser.parse(text)
    let [early, late] = manifest.defaults[file] || [[], []]
    let {errors} = flatten(tree), arrows = []
    tree.iterate({enter(node) {
      if (node.name == "LateAssignOp")
        arrows.push([node.from, node.to - node.from, node.node.parent ? node.node.parent.name : null])
    }})
    files[file] = {
      errors: errors.map(at => lineColumn(text, at)),
      late, arrows,
      lateStyles: late.map(at => highlightAt(tree, at, at + 2)),
      earlyStyles: early.map(at => highlightAt(tree, at, at + 1)),
    }
  }
  return {files}
}

function rewritten(parser, manifest) {
  let result = {files: 0, rewritten: 0, errorsBefore: 0, errorsAfter: 0, late: 0,
                errorFilesAfter: 0, differ: []}
  for (let [file, [early, late]] of Object.entries(manifest.defaults)) {
    if (!early.length) continue
    let text = manifest.text(file), parts = [], last = 0
    for (let at of early) { parts.push(text.slice(last, at + 1), ">"); last = at + 1 }
    parts.push(text.slice(last))
    let before = flatten(parser.parse(text))
    // an offset of the rewritten text, in the original: less each ">" before it
    let inserted = early.map((at, i) => at + i + 1)
    let shift = pos => {
      let lo = 0, hi = inserted.length
      while (lo < hi) { let mid = (lo + hi) >> 1; if (inserted[mid] < pos) lo = mid + 1; else hi = mid }
      return pos - lo
    }
    let rewrittenSet = new Set(early)
    let after = flatten(parser.parse(parts.join("")), (name, from, to) =>
      name == "LateAssignOp" && rewrittenSet.has(from) ? ["AssignOp", to] : [name, to], shift)
    result.files++
    result.rewritten += early.length
    result.late += after.nodes.filter(n => n.startsWith("LateAssignOp@")).length
    result.errorsBefore += before.errors.length
    result.errorsAfter += after.errors.length
    if (after.errors.length) result.errorFilesAfter++
    let difference = firstDifference(after.nodes, before.nodes)
    if (difference) result.differ.push(`${file}: ${difference}`)
  }
  return result
}

function compare(stock, patched, manifest) {
  let result = {files: 0, late: 0, errorsStock: 0, errorsPatched: 0, differ: []}
  for (let file of manifest.files) {
    let text = manifest.text(file), late = (manifest.defaults[file] || [[], []])[1]
    let early = text
    for (let at of late) early = early.slice(0, at) + "= " + early.slice(at + 2)
    let lateSet = new Set(late)
    let mine = flatten(patched.parse(text), (name, from, to) =>
      name == "LateAssignOp" && lateSet.has(from) ? ["AssignOp", from + 1] : [name, to])
    let theirs = flatten(stock.parse(early))
    result.files++
    result.late += late.length
    result.errorsStock += theirs.errors.length
    result.errorsPatched += mine.errors.length
    let difference = firstDifference(mine.nodes, theirs.nodes)
    if (difference) result.differ.push(`${file}: ${difference}`)
  }
  return result
}

let [mode, ...args] = process.argv.slice(2)
let output
if (mode == "corpus" && args.length == 2)
  output = corpus(await parserOf(args[0]), readManifest(args[1]))
else if (mode == "rewritten" && args.length == 2)
  output = rewritten(await parserOf(args[0]), readManifest(args[1]))
else if (mode == "compare" && args.length == 3)
  output = compare(await parserOf(args[0]), await parserOf(args[1]), readManifest(args[2]))
else {
  console.error("usage: node parse.mjs corpus|rewritten DIST MANIFEST | compare STOCK_DIST PATCHED_DIST MANIFEST")
  process.exit(2)
}
console.log(JSON.stringify(output))
