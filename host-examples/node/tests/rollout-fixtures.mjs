// What the rollout tests publish (not a test itself: no `.test.` in its
// name): a signing key, an artifact hash and a record written straight into
// Redis the way docs/rollout.md "The commands" says `retry-policy publish`
// writes them (the publisher itself is the Rust CLI's). The signed message's
// prefix is the vector file's; key ids are the component's (readTrust).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollout, appendCustomSection } from '@webhook/retry-policy';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SHIPPED = fs.readFileSync(path.resolve(here, '../lib/retry_policy.wasm'));
/** Another valid artifact: the shipped one with one more custom section. */
export const OTHER = appendCustomSection(SHIPPED, 'rollout-test', 'another build');
export const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
const VECTORS = JSON.parse(fs.readFileSync(path.resolve(here, '../../../tests/vectors-rollout/rollout.json'), 'utf8'));
/** The hash of the artifact `sha256` (docs/rollout.md "The commands"). */
export const artifactKey = (sha256) => `retry-policy:{rollout}:artifact:${sha256}`;

/** A fresh Ed25519 key: {privateKey, publicPem, keyId}. */
export function signingKey() {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' });
  return { privateKey, publicPem, keyId: rollout.readTrust(publicPem).keyIds[0] };
}

/** The base64 signature of `key` over the message of `digest`. */
export const signature = (key, digest) => crypto.sign(null, Buffer.from(`${VECTORS.signed_message_prefix}${digest}`), key.privateKey).toString('base64');

/** HSET the artifact hash of `bytes` under `under` (default its sha256); `fields` override. Returns the key's sha256. */
export async function publishArtifact(redis, bytes, key, { under = sha(bytes), fields = {} } = {}) {
  await redis.hset(artifactKey(under), {
    bytes: Buffer.from(bytes),
    signature: signature(key, sha(bytes)),
    key_id: key.keyId,
    abi: 'webhook:retry-policy@1.0.0',
    document_version: '',
    size: String(bytes.length),
    published_at_ms: String(Date.now()),
    ...fields,
  });
  return under;
}

/** SET the rollout record (its canonical text: the doc's key order, no whitespace) or a raw text. */
export async function setRecord(redis, record) {
  const canonical = ({ epoch, stable, canary = null, previous = [] }) => JSON.stringify({
    v: 1, epoch, stable, canary: canary === null ? null : { sha256: canary.sha256, percent: canary.percent }, previous,
  });
  const text = typeof record === 'string' ? record : canonical(record);
  await redis.set(rollout.STATE_KEY, text);
  return text;
}

/** This replica id's status record in Redis, or null. */
export async function statusOf(redis, replicaId) {
  const text = await redis.hget(rollout.REPLICAS_KEY, replicaId);
  return text === null ? null : JSON.parse(text);
}
