// Runs part of the test suite inside WebAssembly: Pyodide (CPython compiled to wasm32)
// under node, with the checkout mounted read-only in spirit (NODEFS at /src), the backend
// corpus at /corpus, and every file the tests write in Pyodide's in-memory file system.
// numpy is not there (it comes from Pyodide's CDN, which the job does not use): the
// point is to prove that the core needs none of it.
//
//   node tests/pyodide/run.mjs PYODIDE_DIR CHECKOUT CORPUS WHEELS [pytest args...]
//
// Exit status 0 when every check passed, 1 otherwise.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, checkout, corpus, wheels, ...pytestArgs] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);

const started = Date.now();
const pyodide = await loadPyodide({ indexURL: pyodideDir + "/" });
const mounts = { "/src": checkout, "/corpus": corpus, "/wheels": wheels };
for (const [where, root] of Object.entries(mounts)) {
  pyodide.FS.mkdirTree(where);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(root) }, where);
}
pyodide.globals.set("pytest_args", pyodide.toPy(pytestArgs));
console.log(`pyodide ${pyodide.version} loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
let status;
try {
  status = pyodide.runPython(`
import sys
sys.dont_write_bytecode = True  # nothing written into the mounted checkout
sys.path.insert(0, "/src")
from tests.pyodide.runner import main
main("/corpus", "/wheels", "/tmp/work", list(pytest_args))
`);
} catch (error) {
  console.error(String(error));
  status = 1;
}
console.log(`inside WebAssembly: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
process.exit(status);
