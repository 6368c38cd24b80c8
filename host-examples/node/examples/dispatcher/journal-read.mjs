// Reading a journal of format 1 or 2 (docs/journal.md, "Reading (recovery)"):
// split at LF, check each line's CRC and JSON, find a torn tail (the last
// line only), refuse a bad line anywhere else, keep the newest event record
// per event_id (first-seen order), and check that each one's `policy`
// hashes to its `policy_hash` through the component.
import { PolicyError } from '@webhook/retry-policy';
import { JournalError, crcHex, recordKind, checkHeader, parseEvent, hashDocument } from './journal-record.mjs';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const LF = 0x0a;
const SPACE = 0x20;

/** The JSON of one `<crc> <json>` line (without its LF) whose CRC checks out; throws Error(why) otherwise. */
function checked(line) {
  if (line.length < 10 || line[8] !== SPACE) throw new Error('not `<crc> <json>`');
  const crc = line.subarray(0, 8).toString('latin1');
  if (!/^[0-9a-f]{8}$/.test(crc)) throw new Error('the CRC is not 8 lowercase hex digits');
  const json = line.subarray(9);
  if (crcHex(json) !== crc) throw new Error('the CRC does not match');
  let text;
  try {
    text = utf8.decode(json);
  } catch {
    throw new Error('not UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${e.message}`);
  }
}

/**
 * The policy hash `admit` gives a one-class document: (documentJson, class) -> hash;
 * throws a PolicyError when the component refuses the document.
 * @typedef {(documentJson: string, eventClass: string) => string} Hasher
 */

/**
 * Read a whole journal's bytes. Resolves nothing, writes nothing:
 * {events: [{line, rec}] (newest per event, first-seen order), records (complete, the header included),
 *  goodBytes (the good prefix), tornBytes (0: none)}. Throws JournalError.
 * @param {Buffer} bytes
 * @param {Hasher} hasher
 */
export function readJournal(bytes, hasher) {
  const newest = new Map(); // event_id -> {line, rec}; a Map keeps first-seen order across updates
  let goodBytes = 0;
  let records = 0;
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    line += 1;
    const end = bytes.indexOf(LF, start);
    if (end < 0) break; // no LF: a torn tail
    const isLast = end + 1 === bytes.length;
    let v;
    try {
      v = checked(bytes.subarray(start, end));
    } catch (e) {
      if (isLast) break; // the writer died mid-write
      if (line === 1) throw new JournalError('journal_unsupported', `the first line is not a header: ${e.message}`, { line });
      throw new JournalError('journal_corrupt', e.message, { line });
    }
    const type = recordKind(v, line);
    if (line === 1) {
      if (type !== 'header') throw new JournalError('journal_unsupported', `the first record is \`${type}\`, not a header`, { line });
      checkHeader(v, line);
    } else if (type === 'event') {
      const rec = parseEvent(v, line);
      newest.set(rec.event_id, { line, rec });
    } else if (type === 'header') {
      throw new JournalError('journal_record_invalid', 'a header after the first line', { line, field: 'type' });
    } else {
      throw new JournalError('journal_record_invalid', `\`${type}\` is not header or event`, { line, field: 'type' });
    }
    records += 1;
    goodBytes = end + 1;
    start = end + 1;
  }
  checkPolicies(newest.values(), hasher);
  return { events: [...newest.values()], records, goodBytes, tornBytes: bytes.length - goodBytes };
}

/** Each newest record's `policy` must hash to its `policy_hash` (one component call per distinct document). */
function checkPolicies(events, hasher) {
  const hashes = new Map();
  for (const { line, rec } of events) {
    const doc = hashDocument(rec);
    const key = `${rec.class}\n${doc}`;
    if (!hashes.has(key)) {
      try {
        hashes.set(key, { hash: hasher(doc, rec.class) });
      } catch (e) {
        if (!(e instanceof PolicyError)) throw e;
        hashes.set(key, { refused: e });
      }
    }
    const got = hashes.get(key);
    if (got.refused !== undefined) {
      throw new JournalError('journal_record_invalid', `refused by the component: ${got.refused.message}`, { line, field: 'policy' });
    }
    if (got.hash !== rec.policy_hash) {
      throw new JournalError('journal_record_invalid', `hashes to ${got.hash}, not to policy_hash ${rec.policy_hash}`, { line, field: 'policy' });
    }
  }
}
