'use strict';

/** Call a caller's hook or listener: its own error is ignored, so it never changes a decision, an artifact or a watch. */
function callHook(f, ...args) {
  try {
    f(...args);
  } catch {
    // the hook's failure is the hook's
  }
}

module.exports = { callHook };
