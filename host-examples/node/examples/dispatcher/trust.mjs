// Which certificate authorities an https:// target (and a rediss:// store)
// is verified against: the platform's roots (Node's bundled Mozilla store,
// tls.rootCertificates) PLUS the CAs of --ca-file, never instead of them.
// Passing `ca` to node:tls replaces the default roots, so both are given.
// There is no way to skip verification here, on purpose.
import crypto from 'node:crypto';
import fs from 'node:fs';
import tls from 'node:tls';

/** A CA file that cannot be read or holds no usable PEM certificate. */
export class CaFileError extends Error {
  constructor(file, why) {
    super(`--ca-file ${file}: ${why}`);
    this.name = 'CaFileError';
    this.file = file;
  }
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM certificates of `file` (each parsed once to refuse garbage); throws CaFileError. */
export function readCaFile(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CaFileError(file, `cannot be read (${e.code ?? e.message})`);
  }
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new CaFileError(file, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  blocks.forEach((pem, i) => {
    try {
      new crypto.X509Certificate(pem); // eslint-disable-line no-new
    } catch (e) {
      throw new CaFileError(file, `certificate ${i + 1} is not a valid X.509 certificate (${e.message})`);
    }
  });
  return blocks;
}

/**
 * The `ca` option for node:tls: the platform's roots plus `extra` PEMs; null
 * when there is no extra (node's default). The roots: tls.getCACertificates('default')
 * where node has it (22.15+: the bundled roots plus NODE_EXTRA_CA_CERTS, plus
 * the system store under --use-system-ca), else the bundled tls.rootCertificates.
 */
export function trustedCas(extra = []) {
  if (extra.length === 0) return null;
  return [...(typeof tls.getCACertificates === 'function' ? tls.getCACertificates('default') : tls.rootCertificates), ...extra];
}

/**
 * OpenSSL's certificate verification failures as node reports them
 * (err.code), and node's own name check: the transport kind tls_certificate.
 */
export const CERTIFICATE_ERROR_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);
