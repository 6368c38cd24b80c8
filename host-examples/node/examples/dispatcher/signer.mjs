// Signing deliveries (Standard Webhooks) for the dispatcher: a Signer gives
// each attempt its webhook-id / webhook-timestamp / webhook-signature
// headers from the endpoint's current secrets, and `refresh` reloads them
// (the policy's `refresh_credentials`, after a 401/403). The HMAC itself is
// the library's (`sign` in @webhook/retry-policy, node:crypto).
import fs from 'node:fs/promises';
import { signatureHeaders } from '@webhook/retry-policy';

export class Signer {
  #load;
  #secrets = new Map(); // endpoint id -> [whsec_...]

  /** `load(endpointId)` -> the endpoint's secrets, newest first (a string "a b" or a list). */
  constructor(load) {
    this.#load = load;
  }

  /** Re-read the endpoint's secrets (before the retry that refresh_credentials asks for). */
  async refresh(endpointId) {
    let raw;
    try {
      raw = await this.#load(endpointId);
    } catch (e) {
      // Never the loader's message: a JSON parse error can quote the file (the secrets).
      throw Object.assign(new Error(`cannot load the signing secrets (${e?.code ?? e?.name ?? 'error'})`), { code: 'ENOSECRET' });
    }
    const list = (Array.isArray(raw) ? raw : String(raw ?? '').split(/\s+/)).filter((s) => s !== '');
    this.#secrets.set(endpointId, list);
  }

  /** The three Standard Webhooks headers for one attempt (throws without a secret: never sent unsigned). */
  async headers(endpointId, eventId, body) {
    if (!this.#secrets.has(endpointId)) await this.refresh(endpointId);
    const secrets = this.#secrets.get(endpointId);
    if (secrets.length === 0) throw Object.assign(new Error('no signing secret for the endpoint'), { code: 'ENOSECRET' });
    return signatureHeaders(secrets, eventId, Math.floor(Date.now() / 1000), body);
  }
}

/** A Signer reading a JSON file (endpoint id -> "whsec_new whsec_old" or a list) on every refresh. */
export function fileSigner(path) {
  return new Signer(async (endpointId) => {
    const doc = JSON.parse(await fs.readFile(path, 'utf8'));
    return Object.hasOwn(doc, endpointId) ? doc[endpointId] : [];
  });
}
