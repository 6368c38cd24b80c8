// RedisBudgetStore answering whole store calls (ABI 0.3) against a real
// redis-server on a loopback port (skipped, visibly, when it is not
// installed): a health call is ONE 18-argument EVALSHA of fleet/budget.lua
// (report and probe included) whose 11-integer reply becomes {reservation,
// granted, view}, the same replies as the in-memory store's apply-call on
// the same sequence; a format-2 call stays 8 arguments and 5 integers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Redis from 'ioredis';
import { haveRedis, startRedis } from './local-redis.mjs';
import { RedisBudgetStore, InMemoryBudgetStore, compileDocument } from '@webhook/retry-policy';

const skip = haveRedis ? false : 'redis-server is not installed';
const T0 = Date.now(); // near Redis TIME: the skew check
const DOC = {
  version: 'r3',
  classes: {
    storm: {
      window_ms: 600_000,
      backoff: { base_ms: 1000, factor: 2.0, cap_ms: 4000 },
      budget: { ratio: 0.5, window_ms: 60_000, min_sample: 0, sliding: true },
      health: { circuit: { failure_ratio: 0.5, min_sample: 2, cooldown_ms: 1000, cooldown_max_ms: 4000, probes: 1, probe_interval_ms: 500 } },
    },
    plain: { window_ms: 600_000, backoff: { base_ms: 1000, factor: 2.0, cap_ms: 4000 }, budget: { ratio: 0.5, window_ms: 60_000, min_sample: 0, sliding: true } },
  },
};
let server;
let redis;

before(async () => {
  if (!haveRedis) return;
  ({ server, redis } = await startRedis('redis-health-'));
  assert.equal(await redis.ping(), 'PONG');
});

after(() => {
  redis?.disconnect();
  server?.kill();
});

/** `redis` with each script command's arguments after the key recorded (and its raw reply). */
function recording(client) {
  const sent = [];
  const wrap = (name) => async (...args) => {
    const reply = await client[name](...args);
    sent.push({ name, argv: args.slice(3), reply });
    return reply;
  };
  return { sent, client: { evalsha: wrap('evalsha'), eval: wrap('eval') } };
}

const state = (attempt) => ({ event_id: 'e', endpoint_id: 'ep-h', attempt, max_attempts: 16, first_attempted_at_ms: T0, credentials_refreshed: false });

test("the Redis store's health call sends 18 arguments and reads the 11-integer reply as the in-memory store answers", { skip }, async () => {
  const doc = compileDocument(DOC);
  try {
    const p = doc.classes.get('storm');
    const { sent, client } = recording(redis);
    const store = new RedisBudgetStore(client);
    const mem = new InMemoryBudgetStore();
    // two failed attempts open the circuit; after the cooldown a probe is granted once per window; a probe's success closes it
    const calls = [
      [p.advance(state(1), { status: 503 }, T0), T0],
      [p.advance(state(1), { status: 503 }, T0 + 10), T0 + 10],
      [p.callFor('probe', 'ep-h', T0 + 1500), T0 + 1500],
      [p.callFor('probe', 'ep-h', T0 + 1501), T0 + 1501],
      [p.advance(state(2), { status: 204 }, T0 + 1502, { probe: true }), T0 + 1502],
      [p.callFor('reserve', 'ep-h', T0 + 1600), T0 + 1600],
    ];
    const replies = [];
    for (const [raw, nowMs] of calls) {
      const { action, ...call } = raw.action === 'decided' ? raw.call : raw;
      const got = await store.answer(call, nowMs);
      assert.deepEqual(got, mem.answer(call, nowMs), `${call.op} at +${nowMs - T0}: Redis and apply-call differ`);
      replies.push(got);
    }
    assert.equal(sent.length, calls.length, 'one command per call');
    for (const s of sent) {
      assert.equal(s.argv.length, 18, `${s.argv[0]}: ${s.argv.length} arguments`);
      assert.equal(s.reply.length, 11);
    }
    assert.deepEqual(sent.map((s) => s.argv[0]), ['record_reserve', 'record_reserve', 'probe', 'probe', 'report', 'reserve']);
    assert.ok(replies[1].view.opened_at_ms > 0, 'the circuit opened');
    assert.deepEqual([replies[2].granted, replies[3].granted, replies[2].reservation], [true, false, null]);
    assert.deepEqual([replies[4].view.opened_at_ms, replies[4].view.closed_at_ms], [0, T0 + 1502], 'the probe closed it');
    assert.equal(typeof replies[5].reservation.reserved, 'boolean', 'a wake reserve answers a reservation');
  } finally {
    doc.close();
  }
});

test('a format-2 call through answer stays the 8-argument EVALSHA and its 5 integers', { skip }, async () => {
  const doc = compileDocument(DOC);
  try {
    const p = doc.classes.get('plain');
    const { sent, client } = recording(redis);
    const store = new RedisBudgetStore(client);
    const { action, ...call } = p.advance({ ...state(1), endpoint_id: 'ep-2' }, { status: 503 }, T0);
    assert.equal(call.health, null);
    const got = await store.answer(call, T0);
    assert.deepEqual(got, new InMemoryBudgetStore().answer(call, T0));
    assert.deepEqual([sent.length, sent[0].argv.length, sent[0].reply.length], [1, 8, 5]);
    assert.deepEqual([got.granted, got.view], [null, null]);
  } finally {
    doc.close();
  }
});
