'use strict';
// The REPLICA command line (docs/replica.md "Flags") judged by the current
// artifact's `replica-args` (policy-core/src/replica_args): every flag of
// the command resolved, defaults filled in, or the one line naming what is
// wrong. The --help texts and every flag name are GENERATED beside it
// (replica-usage.cjs), so a replica answers --help, --version and an
// unknown flag before it loads an artifact.
const { artifact } = require('./artifact/current.cjs');
const { REPLICA_USAGE, REPLAY_USAGE, FLAG_NAMES } = require('./replica-usage.cjs');

/** The component's refusal of a command line: `message` is the one line to print (it names the flag). */
class ReplicaArgsError extends Error {
  constructor(line) {
    super(line);
    this.name = 'ReplicaArgsError';
  }
}

/**
 * `replica-args(request)`: `request` {command, args, extras, replica_id,
 * artifact_env} -> the answer ({command: "help" | "version"} or every flag
 * of the command, snake_case); throws ReplicaArgsError with the line.
 */
function judgeReplicaArgs(request) {
  const text = JSON.stringify(request);
  let answer;
  try {
    answer = artifact().run((api) => api.replicaArgs(text));
  } catch (e) {
    if (typeof e?.payload === 'string') throw new ReplicaArgsError(e.payload);
    throw e;
  }
  return JSON.parse(answer);
}

module.exports = { judgeReplicaArgs, ReplicaArgsError, REPLICA_USAGE, REPLAY_USAGE, FLAG_NAMES };
