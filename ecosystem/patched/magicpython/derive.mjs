// Derive tm-grammars' copy of MagicPython (grammars/python.json) from the change that
// magicpython-upstream.patch makes to MagicPython's YAML source, as the copy is made from
// that source upstream: MagicPython's build (syntaxdev build-plist: js-yaml 3, scope names
// of several words reversed), VS Code's conversion of the plist to JSON (the same data),
// then tm-grammars' cleanup (comments dropped, each regular expression compacted by
// oniguruma-parser's optimizer, keys sorted).
//
//   node derive.mjs PATCH GRAMMAR
//
// The patch's hunks of grammars/src/MagicPython.syntax.yaml hold each rule they change
// whole (the patch is made with `git diff --function-context`, README.md). For each rule
// that a hunk changes, its old text must give the rule of GRAMMAR as it is (so the patch
// and the copy are of the same MagicPython), and its new text replaces it. GRAMMAR is
// rewritten in place; prints the names of the rules derived.
import fs from 'node:fs'
import yaml from 'js-yaml'
import { optimize } from 'oniguruma-parser/optimizer'

const SOURCE = 'grammars/src/MagicPython.syntax.yaml'
// A rule of the repository, at the YAML's second level
const RULE = /^ {2}([\w.-]+):\s*$/
const PATTERN_KEYS = ['match', 'begin', 'end', 'while', 'firstLineMatch', 'foldingStartMarker',
  'foldingStopMarker']
const CAPTURE_KEYS = ['captures', 'beginCaptures', 'endCaptures']

function fail(message) {
  process.stderr.write(`derive.mjs: ${message}\n`)
  process.exit(1)
}

// The hunks of the patch for path: each a list of [sign, text] (' ', '-' or '+').
function hunksOf(patch, path) {
  const hunks = []
  let inFile = false
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) inFile = line.endsWith(` b/${path}`)
    else if (inFile && line.startsWith('@@ ')) hunks.push([])
    else if (inFile && hunks.length && /^[ +-]/.test(line) && !/^(\+\+\+|---) /.test(line))
      hunks.at(-1).push([line[0], line.slice(1)])
  }
  return hunks
}

// The rules of one side of a hunk ('-': the old one, '+': the new one), parsed.
function rulesOf(hunk, side) {
  const lines = hunk.filter(([sign]) => sign === ' ' || sign === side)
  const first = lines.findIndex(([, text]) => RULE.test(text))
  const before = first < 0 ? lines : lines.slice(0, first)
  if (before.some(([sign]) => sign !== ' '))
    fail(`a hunk of ${SOURCE} changes a rule whose name it does not hold: make the `
      + 'patch with whole rules (git diff --function-context, README.md)')
  if (first < 0) return {}
  const rules = yaml.safeLoad(lines.slice(first).map(([, text]) => text).join('\n'))
  for (const [name, rule] of Object.entries(rules)) {
    if (!rule || typeof rule !== 'object' || Array.isArray(rule))
      fail(`${SOURCE}: ${name} is not a rule of the repository`)
  }
  return rules
}

// syntaxdev build-plist: a scope name of several words is written in reverse order
function reverseScopes(rule) {
  const reversed = (name) => name.split(/[\s\n]+/).reverse().join(' ')
  if (typeof rule.name === 'string') rule.name = reversed(rule.name)
  for (const inner of rule.patterns ?? []) reverseScopes(inner)
  for (const key of CAPTURE_KEYS) {
    for (const capture of Object.values(rule[key] ?? {})) {
      if (capture && typeof capture.name === 'string') capture.name = reversed(capture.name)
    }
  }
}

// tm-grammars' cleanup: no comments, each regular expression compacted (where the
// optimizer takes it), with the options tm-grammars gives it
function cleanup(rule) {
  if (Array.isArray(rule)) return rule.forEach(cleanup)
  if (!rule || typeof rule !== 'object') return
  if ('$apply' in rule) fail(`${SOURCE}: a rule with $apply (an included file) is not derived`)
  delete rule.comment
  for (const key of PATTERN_KEYS) {
    if (typeof rule[key] === 'string') {
      try {
        rule[key] = optimize(rule[key], { rules: { captureGroup: true } }).pattern
      } catch {
        // kept as written, as tm-grammars keeps what the optimizer does not take
      }
    }
  }
  cleanup(rule.patterns)
  for (const key of [...CAPTURE_KEYS, 'injections', 'repository'])
    cleanup(Object.values(rule[key] ?? {}))
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]))
}

function asInCopy(rule) {
  const copy = structuredClone(rule)
  reverseScopes(copy)
  cleanup(copy)
  return sortKeys(copy)
}

const [patchPath, grammarPath] = process.argv.slice(2)
if (!patchPath || !grammarPath) fail('usage: node derive.mjs PATCH GRAMMAR')
const text = fs.readFileSync(grammarPath, 'utf8')
const grammar = JSON.parse(text)
if (JSON.stringify(sortKeys(grammar), null, 2) + '\n' !== text)
  fail(`${grammarPath} is not written as tm-grammars writes its grammars (sorted keys, `
    + 'two spaces): this derivation would change more than the rules')
const hunks = hunksOf(fs.readFileSync(patchPath, 'utf8'), SOURCE)
if (!hunks.length) fail(`${patchPath} does not change ${SOURCE}`)
const derived = []
for (const hunk of hunks) {
  const before = rulesOf(hunk, '-')
  const after = rulesOf(hunk, '+')
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[name]) === JSON.stringify(after[name])) continue
    if (name in before) {
      const copy = grammar.repository[name]
      if (JSON.stringify(asInCopy(before[name])) !== JSON.stringify(copy))
        fail(`the rule ${name} of ${SOURCE} before the patch does not give the one of `
          + `${grammarPath}: the patch and the copy are not of the same MagicPython`)
    } else if (name in grammar.repository) {
      fail(`the patch adds a rule ${name}, which ${grammarPath} already has`)
    }
    if (name in after) grammar.repository[name] = asInCopy(after[name])
    else delete grammar.repository[name]
    derived.push(name)
  }
}
if (!derived.length) fail(`the hunks of ${SOURCE} change no rule`)
fs.writeFileSync(grammarPath, JSON.stringify(sortKeys(grammar), null, 2) + '\n')
process.stdout.write(JSON.stringify(derived.sort()) + '\n')
