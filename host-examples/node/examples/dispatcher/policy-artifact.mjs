// The policy artifact a dispatcher runs, made visible (docs/artifact.md
// "What a replica shows"): one log line per load, swap and refusal, and the
// gauge webhook_policy_info{artifact_sha256,abi,document_version} 1 (after a
// swap the old series is gone, the new one is 1). Optionally watches the
// artifact's file and swaps when its sha256 changes; swaps and refusals
// count in webhook_policy_reloads_total{result=applied|refused}.
import { artifactInfo, loadArtifact, onArtifactChange, watchArtifact } from '@webhook/retry-policy';

const described = (i) => `sha256=${i.sha256} abi=${i.abi} document_version=${i.document_version ?? ''} source=${i.source}`;

/** The log line of an artifact event. */
export function artifactLine(e) {
  if (e.kind === 'loaded') return `policy artifact loaded ${described(e.info)}`;
  if (e.kind === 'swapped') return `policy artifact swapped sha256=${e.previous.sha256} -> ${e.info.sha256} abi=${e.info.abi} document_version=${e.info.document_version ?? ''} source=${e.info.source}`;
  return `policy artifact refused path=${e.source} code=${e.error.code}: ${e.error.detail}; keeping sha256=${e.info.sha256}`;
}

/**
 * Load the artifact (`source`: a path; default RETRY_POLICY_ARTIFACT, else
 * the package's copy; throws ArtifactError), log every artifact event with
 * `log(line)`, export webhook_policy_info on `metrics`, and with
 * `watchMs` poll the artifact's file (`source` or RETRY_POLICY_ARTIFACT) and
 * swap when it changes. `documentVersion()` names the document the
 * dispatcher decides with (a RetryPolicy's `version`; default: the
 * artifact's embedded one), read at every scrape. Returns {info, close()}.
 */
export function trackPolicyArtifact(metrics, log, { source = null, watchMs = null, documentVersion = null } = {}) {
  let logged = false;
  const stop = onArtifactChange((e) => {
    logged = true;
    log(artifactLine(e));
    if (e.kind === 'swapped') metrics?.inc('webhook_policy_reloads_total', { result: 'applied' });
    if (e.kind === 'refused') metrics?.inc('webhook_policy_reloads_total', { result: 'refused' });
  });
  const info = source === null ? artifactInfo() : loadArtifact(source);
  if (!logged) log(artifactLine({ kind: 'loaded', info })); // loaded before this was called
  metrics?.policyInfo(() => {
    const i = artifactInfo();
    const version = documentVersion === null ? i.document_version : documentVersion();
    return [{ labels: { artifact_sha256: i.sha256, abi: i.abi, document_version: version ?? '' }, value: 1 }];
  });
  const file = source ?? (process.env.RETRY_POLICY_ARTIFACT || null); // empty means unset
  if (watchMs !== null && file === null) throw new TypeError('watching the artifact needs its path (--artifact or RETRY_POLICY_ARTIFACT)');
  const watcher = watchMs === null ? null : watchArtifact(file, { intervalMs: watchMs });
  return {
    info,
    close() {
      watcher?.close();
      stop();
    },
  };
}
