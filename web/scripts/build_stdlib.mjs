// Build the verifier's own Python standard library: only the modules Pyodide's start-up and
// luminair.verifier import, compiled to bytecode by the Python that will run them (Pyodide's, in
// Node). The worker hands it to loadPyodide as `stdLibURL` instead of the full python_stdlib.zip:
// about a third of the download, and no source to compile at start-up (measured in Node:
// loadPyodide 1.4 s -> 0.3-0.5 s). The full python_stdlib.zip stays in the hosted folder for
// PyScript / micropip users.
//
// Which modules: (1) every stdlib module loaded after loadPyodide + installing the wheel +
// importing every verifier module (the glue does that at start-up), (2) the closure of the static
// imports of the verifier's sources and of the glue, within the stdlib (an import inside a function
// or a try block counts too), (3) a few codecs. A module outside that set raises
// ModuleNotFoundError: the Node and e2e tests verify, reject and inspect through this file.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const WEB = dirname(dirname(fileURLToPath(import.meta.url)));
export const STDLIB_FILE = "python_stdlib.verifier.zip";
export const BYTECODE_FILE = "verifier_bytecode.zip";

const PY_BUILD = String.raw`
import ast, importlib._bootstrap_external as _be, io, json, sys, zipfile

ZIP = sys.path[1] if sys.path[1].endswith(".zip") else next(p for p in sys.path if p.endswith(".zip"))
src = zipfile.ZipFile(ZIP)
names = set(src.namelist())

def member(mod):
    p = mod.replace(".", "/")
    for cand in (p + ".py", p + "/__init__.py"):
        if cand in names:
            return cand
    return None

def parents(mod):
    parts = mod.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]

def walk_module_level(tree):
    """Nodes that run when the module is imported: everything except function bodies."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                stack.append(child)

def imports_of(source, package, everywhere):
    out = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out
    for node in (ast.walk(tree) if everywhere else walk_module_level(tree)):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if not package:
                    continue
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            if not mod:
                continue
            out.add(mod)
            for a in node.names:
                out.add(mod + "." + a.name)
    return out

wanted = set()
loaded = set()
def add(mod):
    for m in parents(mod) + [mod]:
        if member(m) and m not in wanted:
            wanted.add(m)
            if m not in loaded:  # a module that really ran brought in what it needed already
                queue.append(m)

queue = []
# (1) what start-up, the verifier's import and a few verifications actually loaded from the stdlib zip
for proof, settings in SAMPLES:
    proof, settings = bytes(proof.to_py()), bytes(settings.to_py())
    cases = [(proof, settings), (settings, proof), (b"garbage" * 20, settings), (proof[:100], settings)]
    for at in range(64, len(proof), max(1, len(proof) // 7)):
        bad = bytearray(proof)
        bad[at] ^= 1
        cases.append((bytes(bad), settings))
    for p, s in cases:
        luminair_verify(p, s)
        luminair_verify(p, s, None, 0)
    luminair_inspect(proof)
    luminair_inspect(settings)
for name, m in list(sys.modules.items()):
    f = getattr(m, "__file__", None) or ""
    if f.startswith(ZIP + "/"):
        loaded.add(name)
for name in sorted(loaded):
    add(name)
# (2) static imports of the verifier and the glue
import luminair.verifier, pkgutil, pathlib
roots = [pathlib.Path(luminair.verifier.__file__).parent]
sources = [(GLUE, "")]
for p in sorted(roots[0].rglob("*.py")):
    rel = p.relative_to(roots[0].parent.parent).with_suffix("")
    mod = ".".join(rel.parts)
    pkg = mod if p.name == "__init__.py" else mod.rsplit(".", 1)[0]
    sources.append((p.read_text(encoding="utf-8"), pkg.removesuffix(".__init__")))
for text, pkg in sources:
    for mod in imports_of(text, pkg, True):
        add(mod)
# (3) codecs that text handling may look up by name
for mod in ("encodings.ascii", "encodings.latin_1", "encodings.utf_8", "encodings.utf_8_sig", "encodings.aliases", "encodings.cp437"):
    add(mod)
while queue:
    m = queue.pop()
    path = member(m)
    pkg = m if path.endswith("__init__.py") else m.rpartition(".")[0]
    for dep in imports_of(src.read(path), pkg, False):
        add(dep)

def without_docstrings(data, name):
    """The module's AST less its docstrings (as python -OO drops them; asserts stay): about a
    quarter of the standard library's bytecode, which nothing the verifier runs reads."""
    tree = ast.parse(data, name)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.copy_location(ast.Pass(), body[0])]
    return tree

files = sorted({member(m) for m in wanted})
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as out:
    for name in files:
        data = src.read(name)
        code = compile(without_docstrings(data, name), name, "exec", dont_inherit=True, optimize=0)
        # sourceless bytecode: zipimport loads name.pyc when name.py is absent
        pyc = bytes(_be._code_to_timestamp_pyc(code, 0, len(data)))
        zi = zipfile.ZipInfo(name + "c", date_time=(1980, 1, 1, 0, 0, 0))
        zi.external_attr = 0o100644 << 16
        zi.create_system = 3
        # stored, not deflated: the server's brotli (the build's .br) packs stored bytecode 30 %
        # smaller than it packs a deflated zip, and zipimport reads it without inflating
        out.writestr(zi, pyc, compress_type=zipfile.ZIP_STORED)
RESULT = buf.getvalue()
MODULES = json.dumps(sorted(wanted))

# The verifier itself, compiled by this Python: luminair/**/__pycache__/*.cpython-3XX.pyc with
# unchecked hash-based headers (PEP 552), extracted by the worker over the unpacked wheel, so that
# importing the verifier compiles nothing. Built here, from the wheel's own files, and pinned.
import importlib.util as _iu, os as _os
entries = []
for root, dirs, files in _os.walk("luminair"):
    for f in files:
        if f.endswith(".py"):
            p = _os.path.join(root, f)
            src = open(p, "rb").read()
            code = compile(src, _os.path.abspath(p), "exec", dont_inherit=True, optimize=0)
            entries.append((_iu.cache_from_source(p), bytes(_be._code_to_hash_pyc(code, _iu.source_hash(src), checked=False))))
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as out:
    for name, data in sorted(entries):
        zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        zi.external_attr = 0o100644 << 16
        zi.create_system = 3
        out.writestr(zi, data, compress_type=zipfile.ZIP_STORED)
BYTECODE = buf.getvalue()
`;

/**
 * Build web/assets/python_stdlib.verifier.zip and web/assets/verifier_bytecode.zip for the given
 * verifier wheel. Cached in web/.cache by (Pyodide version, wheel SHA-256, this script, glue,
 * samples). Returns {file, sha256, size, modules, bytecode: {file, sha256, size}}.
 */
export async function buildVerifierStdlib({ wheelPath, wheelSha256, outDir = join(WEB, "assets"), glue, samples = [] }) {
  const require = createRequire(import.meta.url);
  const pyodideDir = dirname(require.resolve("pyodide/package.json"));
  const pyodideVersion = JSON.parse(readFileSync(join(pyodideDir, "package.json"), "utf8")).version;
  const key = createHash("sha256")
    .update(pyodideVersion)
    .update(wheelSha256)
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(glue)
    .update(createHash("sha256").update(JSON.stringify(samples.map((s) => s.map((b) => createHash("sha256").update(b).digest("hex"))))).digest())
    .digest("hex")
    .slice(0, 16);
  const cacheDir = join(WEB, ".cache");
  const cached = join(cacheDir, `stdlib-${key}.zip`);
  const cachedBytecode = join(cacheDir, `bytecode-${key}.zip`);
  const cachedModules = join(cacheDir, `stdlib-${key}.json`);
  let bytes;
  let bytecode;
  let modules;
  if (existsSync(cached) && existsSync(cachedModules) && existsSync(cachedBytecode)) {
    bytes = readFileSync(cached);
    bytecode = readFileSync(cachedBytecode);
    modules = JSON.parse(readFileSync(cachedModules, "utf8"));
  } else {
    const { loadPyodide } = await import("pyodide");
    const { installWheel, installGlue } = await import("../src/pyglue.js");
    const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
    await installWheel(py, new Uint8Array(readFileSync(wheelPath)), wheelSha256);
    installGlue(py); // imports every verifier module, as the worker does at start-up
    py.globals.set("GLUE", glue);
    py.globals.set("SAMPLES", samples.map(([p, s]) => [new Uint8Array(p), new Uint8Array(s)]));
    py.runPython(PY_BUILD);
    bytes = Buffer.from(py.globals.get("RESULT").toJs());
    bytecode = Buffer.from(py.globals.get("BYTECODE").toJs());
    modules = JSON.parse(py.globals.get("MODULES"));
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(cachedBytecode, bytecode);
    writeFileSync(cachedModules, JSON.stringify(modules));
    writeFileSync(`${cached}.tmp`, bytes);
    renameSync(`${cached}.tmp`, cached);
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, STDLIB_FILE), bytes);
  writeFileSync(join(outDir, BYTECODE_FILE), bytecode);
  const sha = (b) => createHash("sha256").update(b).digest("hex");
  return {
    file: STDLIB_FILE, sha256: sha(bytes), size: bytes.length, modules: modules.length,
    bytecode: { file: BYTECODE_FILE, sha256: sha(bytecode), size: bytecode.length },
  };
}
