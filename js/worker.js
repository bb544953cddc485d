// The run of `certify` for an async reducer (index.js, certifyInWorker): the
// kit's WebAssembly run, here, asks for each answer synchronously; this
// thread posts the request's text to the main thread, which awaits the
// reducer, and blocks (Atomics.wait) until the answer's text is back.

import { createRequire } from "node:module";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";

const require = createRequire(import.meta.url);
const native = require("./wasm/reducer_kit_js.js");
const { options, flag, port } = workerData;

function answer(text, marked) {
  Atomics.store(flag, 0, 0);
  port.postMessage([text, marked]);
  for (;;) {
    Atomics.wait(flag, 0, 0, 1000);
    const got = receiveMessageOnPort(port);
    if (got !== undefined) {
      if (typeof got.message === "object") throw new Error(got.message.stop);
      return got.message;
    }
  }
}

try {
  parentPort.postMessage({ found: native.certify(answer, options) });
} catch (e) {
  let message = e instanceof Error ? e.message : String(e);
  if (e instanceof WebAssembly.RuntimeError) {
    message = `internal error (a bug of reducer-kit, please report it): ${native.lastPanic() ?? e.message}`;
  }
  parentPort.postMessage({ error: message });
}
