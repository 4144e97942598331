// Tokenize Python files with shiki (its TextMate engine, Oniguruma in WebAssembly), as
// the ecosystem probe and tests of ecosystem/patched/magicpython read them.
//
//   node tokenize.mjs GRAMMAR FILE...
//
// GRAMMAR is a grammar's JSON file (grammars/python.json of tm-grammars, stock or
// patched), or "shiki" for the python grammar that @shikijs/langs bundles. Prints
// {"FILE": [[[text, scope, ...], ...], ...], ...}: for each line of each file, its
// tokens, each with the scopes of the TextMate stack (source.python first). build.py
// copies this file beside the node_modules it installs.
import fs from 'node:fs'
import { createHighlighterCore } from '@shikijs/core'
import { createOnigurumaEngine } from '@shikijs/engine-oniguruma'

const [grammarPath, ...files] = process.argv.slice(2)
const lang = grammarPath === 'shiki'
  ? (await import('@shikijs/langs/python')).default
  : [{ ...JSON.parse(fs.readFileSync(grammarPath, 'utf8')), name: 'python' }]
const highlighter = await createHighlighterCore({
  langs: [lang],
  themes: [],
  engine: createOnigurumaEngine(import('@shikijs/engine-oniguruma/wasm-inlined')),
})
const grammar = highlighter.getLanguage('python')

const result = {}
for (const file of files) {
  let stack = null
  result[file] = fs.readFileSync(file, 'utf8').split('\n').map((line) => {
    const { tokens, ruleStack } = grammar.tokenizeLine(line, stack)
    stack = ruleStack
    return tokens.map((t) => [line.slice(t.startIndex, t.endIndex), ...t.scopes])
  })
}
process.stdout.write(JSON.stringify(result))
