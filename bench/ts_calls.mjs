// The TypeScript compiler API as the reference analyser of bench/call_accuracy.py: it
// enumerates the call sites of a JavaScript/TypeScript tree and says what each one calls.
//
// Run:   node bench/ts_calls.mjs TYPESCRIPT_DIR    (the installed `typescript` package)
// One process serves one project. It reads requests, one JSON object a line, on stdin and
// answers each with one JSON line on stdout (nothing else is written there):
//
//   {"op": "init", "root": ABS, "files": [REL, ...], "maxNodeModuleJsDepth": N}
//       Builds one program: ROOT/tsconfig.json when it exists (read with
//       ts.parseJsonConfigFileContent, `extends` followed), else default options with
//       allowJs; the files given (the JS/TS files the index holds) are added to its root
//       files so every indexed file is type-checked in the same program. Overridden:
//       noEmit, skipLibCheck, no incremental/composite, allowJs when JavaScript files
//       are given, maxNodeModuleJsDepth (how deep JavaScript packages in node_modules
//       are read, so calls into them resolve outside the workspace instead of nowhere).
//       -> {"version", "config", "rootFiles", "programFiles", "configErrors": [..], "missing": [..], "ms"}
//   {"op": "sites", "files": [REL, ...]}
//       Every CallExpression and NewExpression whose callee is an identifier (`f()`,
//       `new Foo()`) or a property access (`a.b.f()`, `this.f()`, `super.f()`,
//       `a?.f()`; the position is the property name's). Others (`f()()`, `a[k]()`,
//       `super()`, `(0, f)()`) are counted as skipped.
//       -> {"sites": [[REL, LINE, COL, NAME, KIND], ...], "skipped": N, "failures": [[REL, MSG], ..]}
//       KIND: "bare" | "this" | "super" | "attr" | "new"; LINE 1-based; COL the 0-based
//       UTF-8 byte column of the name in its line (the unit of the index's refs.col).
//   {"op": "resolve", "queries": [[REL, LINE, COL], ...]}
//       For each position: the identifier there, checker.getSymbolAtLocation on it,
//       aliases followed with checker.getAliasedSymbol, and the symbol's declarations.
//       -> {"results": [{"token": TEXT|null, "defs": [DEF, ..], "error": MSG?}, ...]}
//       DEF: {"path": ABS, "line": LINE of the declaration's name, "name", "kind": the
//       declaration's SyntaxKind, "callable", "definite", "dts" (see classify below)}
//   {"op": "quit"}
// A request that fails answers {"error": MSG}; the caller counts and prints those.

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";

const require = createRequire(import.meta.url);
const ts = require(process.argv[2] || "typescript");

let program = null;
let checker = null;
let root = null;

/** The program of a project root: its tsconfig.json's, plus the given files. */
function init(req) {
  const started = Date.now();
  root = path.resolve(req.root);
  const files = req.files.map((f) => path.join(root, f));
  const hasJs = req.files.some((f) => /\.(m|c)?jsx?$/.test(f));
  const configPath = path.join(root, "tsconfig.json");
  let options;
  let rootNames = [];
  const configErrors = [];
  let config = null;
  if (fs.existsSync(configPath)) {
    config = "tsconfig.json";
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    if (read.error) configErrors.push(flatten(read.error));
    const parsed = ts.parseJsonConfigFileContent(read.config || {}, ts.sys, root, undefined, configPath);
    for (const e of parsed.errors) configErrors.push(flatten(e));
    options = parsed.options;
    rootNames = parsed.fileNames;
  } else {
    options = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      lib: ["lib.es2022.full.d.ts"],
      esModuleInterop: true,
      experimentalDecorators: true,
      jsx: ts.JsxEmit.Preserve,
      strict: true,
    };
  }
  Object.assign(options, {
    noEmit: true,
    skipLibCheck: true,
    incremental: false,
    composite: false,
    tsBuildInfoFile: undefined,
    declaration: false,
    maxNodeModuleJsDepth: req.maxNodeModuleJsDepth ?? 0,
  });
  if (hasJs) {
    options.allowJs = true;
    options.checkJs = false;
  }
  const names = [...new Set([...rootNames, ...files])];
  program = ts.createProgram({ rootNames: names, options });
  checker = program.getTypeChecker();
  const missing = files.filter((f) => !program.getSourceFile(f)).map((f) => path.relative(root, f));
  return {
    version: ts.version,
    config,
    rootFiles: names.length,
    programFiles: program.getSourceFiles().length,
    configErrors,
    missing,
    ms: Date.now() - started,
  };
}

function flatten(diagnostic) {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
}

/** 1-based line and UTF-8 byte column of a position of a source file. */
function lineCol(sf, pos) {
  const { line } = sf.getLineAndCharacterOfPosition(pos);
  const lineStart = sf.getPositionOfLineAndCharacter(line, 0);
  return [line + 1, Buffer.byteLength(sf.text.slice(lineStart, pos), "utf8")];
}

/** The position of a 1-based line and UTF-8 byte column, or -1 outside the file. */
function positionOf(sf, line, col) {
  const starts = sf.getLineStarts();
  if (line < 1 || line > starts.length) return -1;
  const start = starts[line - 1];
  const end = line < starts.length ? starts[line] : sf.text.length;
  const bytes = Buffer.from(sf.text.slice(start, end), "utf8");
  return start + bytes.subarray(0, col).toString("utf8").length;
}

function sites(req) {
  const out = [];
  const failures = [];
  let skipped = 0;
  for (const rel of req.files) {
    const sf = program.getSourceFile(path.join(root, rel));
    if (!sf) {
      failures.push([rel, "not in the program"]);
      continue;
    }
    const visit = (node) => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const isNew = ts.isNewExpression(node);
        let callee = node.expression;
        while (ts.isParenthesizedExpression(callee) || ts.isNonNullExpression(callee)) callee = callee.expression;
        let name = null;
        let kind = null;
        if (ts.isIdentifier(callee)) {
          name = callee;
          kind = isNew ? "new" : "bare";
        } else if (ts.isPropertyAccessExpression(callee)) {
          name = callee.name;
          const receiver = callee.expression.kind;
          kind = isNew
            ? "new"
            : receiver === ts.SyntaxKind.ThisKeyword
              ? "this"
              : receiver === ts.SyntaxKind.SuperKeyword
                ? "super"
                : "attr";
        }
        if (name && !(kind === "bare" && name.text === "require")) {
          const [line, col] = lineCol(sf, name.getStart(sf));
          out.push([rel, line, col, name.text, kind]);
        } else {
          skipped++;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { sites: out, skipped, failures };
}

/** The innermost identifier (or #private name) spanning pos. */
function identifierAt(sf, pos) {
  let found = null;
  const visit = (node) => {
    if (pos < node.getStart(sf) || pos >= node.getEnd()) return;
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) found = node;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function unwrap(e) {
  while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression?.(e))) e = e.expression;
  return e;
}

function isFunctionOrClass(e) {
  e = unwrap(e);
  return !!e && (ts.isFunctionExpression(e) || ts.isArrowFunction(e) || ts.isClassExpression(e));
}

/** What a declaration is: `callable` a function, method, constructor or class with a
 * body (or a variable, property or assignment initialised with one); `definite` callable
 * or a bodyless function/method/class declaration (an overload, `declare`, a .d.ts);
 * `dts` in a declaration file. Interface members, parameters and other variables are
 * neither: calls through them have no single definition. */
function classify(decl) {
  const sf = decl.getSourceFile();
  let fn = false;
  let body = true;
  if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl) || ts.isConstructorDeclaration(decl)) {
    fn = true;
    body = !!decl.body;
  } else if (ts.isClassDeclaration(decl) || ts.isClassExpression(decl) || ts.isFunctionExpression(decl) || ts.isArrowFunction(decl)) {
    fn = true;
  } else if (ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertyAssignment(decl)) {
    fn = isFunctionOrClass(decl.initializer);
  } else if (ts.isBinaryExpression(decl)) {
    fn = isFunctionOrClass(decl.right);
  } else if (ts.isPropertyAccessExpression(decl) && ts.isBinaryExpression(decl.parent)) {
    fn = isFunctionOrClass(decl.parent.right);
  }
  const ambient = sf.isDeclarationFile || !!(ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Ambient);
  return { callable: fn && body && !ambient, definite: fn, dts: sf.isDeclarationFile };
}

function describe(decl, symbol) {
  const sf = decl.getSourceFile();
  const nameNode = ts.getNameOfDeclaration(decl) || decl;
  const start = nameNode.getStart ? nameNode.getStart(sf) : decl.getStart(sf);
  const line = sf.getLineAndCharacterOfPosition(start).line + 1;
  let name;
  if (ts.isConstructorDeclaration(decl)) name = "constructor";
  else if (nameNode !== decl && (ts.isIdentifier(nameNode) || ts.isPrivateIdentifier(nameNode) || ts.isStringLiteral(nameNode)))
    name = nameNode.text;
  else name = symbol.getName();
  return { path: sf.fileName, line, name, kind: ts.SyntaxKind[decl.kind], ...classify(decl) };
}

function resolve(req) {
  const results = [];
  for (const [rel, line, col] of req.queries) {
    try {
      const sf = program.getSourceFile(path.join(root, rel));
      if (!sf) {
        results.push({ token: null, defs: [], error: "file not in the program" });
        continue;
      }
      const pos = positionOf(sf, line, col);
      const id = pos < 0 ? null : identifierAt(sf, pos);
      if (!id) {
        results.push({ token: null, defs: [], error: "no identifier at that position" });
        continue;
      }
      let symbol = checker.getSymbolAtLocation(id);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const decls = (symbol && symbol.declarations) || [];
      results.push({ token: id.text, defs: decls.map((d) => describe(d, symbol)) });
    } catch (e) {
      results.push({ token: null, defs: [], error: String((e && e.stack) || e).slice(0, 500) });
    }
  }
  return { results };
}

const handlers = { init, sites, resolve };
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let answer;
  try {
    const req = JSON.parse(line);
    if (req.op === "quit") break;
    const handler = handlers[req.op];
    if (!handler) answer = { error: `unknown op ${req.op}` };
    else if (req.op !== "init" && !program) answer = { error: "init first" };
    else answer = handler(req);
  } catch (e) {
    answer = { error: String((e && e.stack) || e).slice(0, 2000) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
