// The policy artifact a dispatcher runs, made visible (docs/artifact.md
// "What a replica shows"): one log line per load, swap and refusal, and the
// gauge webhook_policy_info{artifact_sha256,abi,document_version} 1 (after a
// swap the old series is gone, the new one is 1). Optionally watches the
// artifact's file and swaps when its sha256 changes; swaps and refusals
// count in webhook_policy_reloads_total{result=applied|refused}.
import { artifactInfo, loadArtifact, onArtifactChange, watchArtifact } from '@webhook/retry-policy';

const described = (i, version) => `abi=${i.abi} document_version=${version} source=${i.source}`;

/** The log line of an artifact event; `version`: the document the dispatcher decides with (docs/artifact.md). */
export function artifactLine(e, version) {
  if (e.kind === 'loaded') return `policy artifact loaded sha256=${e.info.sha256} ${described(e.info, version)}`;
  if (e.kind === 'swapped') return `policy artifact swapped sha256=${e.previous.sha256} -> ${e.info.sha256} ${described(e.info, version)}`;
  return `policy artifact refused path=${e.source} code=${e.error.code}: ${e.error.detail}; keeping sha256=${e.info.sha256}`;
}

/**
 * Load the artifact the dispatcher starts on (`source`: a path; default
 * RETRY_POLICY_ARTIFACT, else the package's copy); throws ArtifactError.
 * Its metrics schema is the one the dispatcher's Metrics registers.
 */
export function loadPolicyArtifact(source = null) {
  if (source === null) artifactInfo(); // the default artifact, loaded now: a refusal is the caller's to report
  else loadArtifact(source);
}

/**
 * For the artifact loadPolicyArtifact(`source`) loaded: log every artifact
 * event with `log(line)`, export webhook_policy_info on `metrics`, and with `watchMs`
 * poll the artifact's file (`source` or RETRY_POLICY_ARTIFACT) and swap when
 * it changes. `documentVersion()` names the document the dispatcher decides
 * with, read at every scrape and in every log line. The "loaded" line waits
 * for `announce()` (once the document is loaded: the line then names its
 * version, and the artifact running then: a swap before it, such as a
 * rollout's first tick, is in that line only, neither logged nor counted
 * apart). Returns {announce(), close()}.
 */
export function trackPolicyArtifact(metrics, log, { source = null, watchMs = null, documentVersion }) {
  const versionOf = () => documentVersion() ?? '';
  let announced = false;
  const stop = onArtifactChange((e) => {
    if (e.kind === 'loaded' || !announced) return; // the first load is logged once, by announce()
    if (e.kind === 'refused' && e.source === 'redis') return; // the rollout follower logs and counts its own refusals
    log(artifactLine(e, versionOf()));
    if (e.kind === 'swapped') metrics.inc('webhook_policy_reloads_total', { result: 'applied' });
    if (e.kind === 'refused') metrics.inc('webhook_policy_reloads_total', { result: 'refused' });
  });
  metrics.policyInfo(() => {
    const i = artifactInfo();
    return [{ labels: { artifact_sha256: i.sha256, abi: i.abi, document_version: versionOf() }, value: 1 }];
  });
  const file = source ?? (process.env.RETRY_POLICY_ARTIFACT || null); // empty means unset
  if (watchMs !== null && file === null) throw new TypeError('watching the artifact needs its path (--artifact or RETRY_POLICY_ARTIFACT)');
  const watcher = watchMs === null ? null : watchArtifact(file, { intervalMs: watchMs });
  return {
    announce() {
      announced = true;
      log(artifactLine({ kind: 'loaded', info: artifactInfo() }, versionOf()));
    },
    close() {
      watcher?.close();
      stop();
    },
  };
}
