// The REPLICA command line (docs/replica.md "Flags"), judged once for every
// language by the artifact's `replica-args` (lib/replica-args.cjs). Here only
// what needs this process: the command, what is answered before the
// artifact loads (--help, --version, an unknown flag: from the GENERATED
// usage texts and flag names), the --artifact to load, and the files the
// flags name. Bad arguments throw UsageError; main.mjs prints it, exit 2.
import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { readCaFile, CaFileError } from '../dispatcher/trust.mjs';
import { redactText } from '../dispatcher/redact.mjs';
import { rollout, RolloutError } from '@webhook/retry-policy';

const require = createRequire(import.meta.url);
const { judgeReplicaArgs, ReplicaArgsError, REPLICA_USAGE, REPLAY_USAGE, FLAG_NAMES } = require('../../lib/replica-args.cjs');

export const EVENT_CLASS = 'storm';
/** The language extras this replica honours (docs/replica.md "Language extras"). */
const EXTRAS = ['--signing-secrets'];

export class UsageError extends Error {}

/** argv without node and the script -> {command: "replica" | "replay", args: the command's arguments}. */
export function commandLine(argv) {
  return argv[0] === 'replay' ? { command: 'replay', args: argv.slice(1) } : { command: 'replica', args: argv };
}

/**
 * What is answered without the artifact: {stdout} for --help / -h (the
 * command's usage) and --version; an argument `--x` no command has throws
 * the component's line; null otherwise.
 */
export function answeredEarly(command, args) {
  if (args.includes('--help') || args.includes('-h')) return { stdout: command === 'replay' ? REPLAY_USAGE : REPLICA_USAGE };
  if (args.includes('--version')) {
    const pkg = require('../../package.json');
    return { stdout: `replica (node ${process.versions.node}) ${pkg.name} ${pkg.version}\n` };
  }
  const unknown = args.find((a) => a.startsWith('--') && !FLAG_NAMES.has(a.split('=', 1)[0]));
  if (unknown !== undefined) throw new UsageError(`unknown argument ${JSON.stringify(unknown)}`);
  return null;
}

/** --artifact's value in `args` (`--artifact P` or `--artifact=P`), else null: RETRY_POLICY_ARTIFACT, else the package's copy. */
export function artifactArg(args) {
  const at = args.findIndex((a) => a === '--artifact' || a.startsWith('--artifact='));
  if (at < 0) return null;
  return (args[at] === '--artifact' ? args[at + 1] : args[at].slice('--artifact='.length)) || null; // none: the component names it
}

/** The component's answer for `command`'s `args` (every flag, snake_case); UsageError with its line. */
export function judge(command, args) {
  const request = { command, args, extras: EXTRAS, replica_id: `node-${os.hostname()}-${process.pid}`, artifact_env: process.env.RETRY_POLICY_ARTIFACT ?? null };
  try {
    return judgeReplicaArgs(request);
  } catch (e) {
    if (e instanceof ReplicaArgsError) throw new UsageError(redactText(e.message)); // its quoted value may hold a URL's query
    throw e;
  }
}

/** --policy's text; UsageError naming the file. */
export function readPolicy(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`--policy: cannot read ${file}: ${e.message}`);
  }
}

/** --trust-key's keys, read by the loaded artifact (rollout-open); UsageError naming the file and rollout_trust_invalid. */
function trustedKeys(file) {
  const refused = (e, detail) => (e instanceof RolloutError ? new UsageError(`--trust-key: ${e.code}: ${detail}`) : e);
  let text;
  try {
    text = rollout.readTrustText(file);
  } catch (e) {
    throw refused(e, e.detail);
  }
  try {
    return rollout.readTrust(text);
  } catch (e) {
    throw refused(e, `${file}: ${e.detail}`);
  }
}

/**
 * The run's settings (the artifact loaded): the component's answer for
 * `args` plus what the flags' files hold: policy_text (null without
 * --policy: the artifact's embedded document), ca_certs (PEM strings, []
 * without --ca-file), trusted (--trust-key's keys, null without
 * --artifact-from-redis).
 */
export function replicaOptions(args) {
  const opts = judge('replica', args);
  const trusted = opts.artifact_from_redis ? trustedKeys(opts.trust_key) : null;
  const policyText = opts.policy === null ? null : readPolicy(opts.policy);
  let caCerts = [];
  try {
    if (opts.ca_file !== null) caCerts = readCaFile(opts.ca_file);
  } catch (e) {
    throw e instanceof CaFileError ? new UsageError(e.message) : e;
  }
  return { ...opts, policy_text: policyText, ca_certs: caCerts, trusted };
}
