#!/usr/bin/env node
/**
 * No function in src/ longer than 100 lines (docs/architecture.md): every function — declarations,
 * methods, accessors, constructors, arrow functions and function expressions, nested or not — is
 * measured from the line of its first token to the line of its closing brace, both included. A
 * nested function counts inside its parent too: splitting means moving steps out, not nesting them.
 * Part of `npm test` (`npm run lint:functions`). Biome's noExcessiveLinesPerFunction counts only
 * the body's lines and skips some methods, so it let through functions this rule is about.
 *   node scripts/check-function-length.mjs [--max N] [dir...]
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const args = process.argv.slice(2);
let max = 100;
const maxAt = args.indexOf("--max");
if (maxAt >= 0) {
  max = Number(args[maxAt + 1]);
  args.splice(maxAt, 2);
}
const roots = args.length ? args : ["src"];

function* tsFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(p);
    else if (/\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) yield p;
  }
}

function nameOf(node, source) {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return "(anonymous)";
}

const offenders = [];
for (const root of roots) {
  for (const file of tsFiles(root)) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        if (lines > max) offenders.push({ file, line: first + 1, name: nameOf(node, source), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

offenders.sort((a, b) => b.lines - a.lines);
for (const o of offenders) console.error(`${o.file}:${o.line}: ${o.name} is ${o.lines} lines (at most ${max}): split it into one function per step`);
if (offenders.length) {
  console.error(`${offenders.length} function(s) longer than ${max} lines`);
  process.exit(1);
}
console.log(`no function longer than ${max} lines in ${roots.join(", ")}`);
