'use strict';
// Reload without restart: watch a policy document's file and hand every
// new version to `RetryPolicy#reload`, which validates it before the swap
// (a bad document keeps the current one; `onReload` is told why). Polls the
// file's stat (fs.watchFile) rather than inotify, so an editor's or a
// deploy's write-then-rename is seen like an in-place write.
const fs = require('node:fs');
const { callHook } = require('./hook.cjs');

/**
 * Watch `file` and reload `policy` when it changes.
 * options: intervalMs (stat poll, default 1000), onReload(result, file)
 *   with result {ok: true, version, previousVersion} or {ok: false, error}.
 * Returns {check(): Promise<result>, close()}.
 */
function watchPolicyFile(policy, file, { intervalMs = 1000, onReload = () => {} } = {}) {
  if (policy === null || typeof policy !== 'object' || typeof policy.reload !== 'function') {
    throw new TypeError('watchPolicyFile: expected a RetryPolicy');
  }
  let running = Promise.resolve();
  const check = () => {
    running = running.then(async () => {
      let result;
      try {
        result = policy.reload(await fs.promises.readFile(file, 'utf8'));
      } catch (e) {
        result = { ok: false, error: Object.assign(new Error(`cannot read ${file} (${e?.code ?? 'error'})`), { code: e?.code }) };
      }
      callHook(onReload, result, file);
      return result;
    });
    return running;
  };
  const listener = (cur, prev) => {
    if (cur.mtimeMs !== prev.mtimeMs || cur.size !== prev.size || cur.ino !== prev.ino) check();
  };
  fs.watchFile(file, { interval: intervalMs, persistent: false }, listener);
  return {
    check,
    close: () => fs.unwatchFile(file, listener),
  };
}

module.exports = { watchPolicyFile };
