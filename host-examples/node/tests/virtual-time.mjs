// Test helpers for the format-3 dispatcher tests: a discrete-event scheduler
// on a ManualClock (every sleep waits in a queue; when every running event
// is asleep, the clock jumps to the earliest wake), and a scriptable
// loopback receiver that stamps each request with the virtual clock.
import http from 'node:http';

export function eventScheduler(clock) {
  const sleepers = [];
  let running = 0;
  const scheduler = {
    slept: [],
    sleep: (ms, signal) => new Promise((resolve) => {
      scheduler.slept.push(ms);
      const s = { at: clock.nowMs() + Math.max(0, ms), resolve };
      sleepers.push(s);
      signal?.addEventListener('abort', () => {
        const i = sleepers.indexOf(s);
        if (i >= 0) sleepers.splice(i, 1);
        resolve();
      }, { once: true });
    }),
    /** Track a running task (an event's delivery) until it settles. */
    track(promise) {
      running += 1;
      return promise.finally(() => {
        running -= 1;
      });
    },
    /** Wait (real time, bounded) until every tracked task sleeps or is done. */
    async idle(limitMs = 10_000) {
      const until = Date.now() + limitMs;
      for (;;) {
        await new Promise((r) => setTimeout(r, 2));
        if (sleepers.length >= running) {
          await new Promise((r) => setTimeout(r, 2)); // settled twice: nothing left in flight
          if (sleepers.length >= running) return;
        }
        if (Date.now() > until) throw new Error(`not idle after ${limitMs} ms: ${running} running, ${sleepers.length} asleep`);
      }
    },
    /** Move the clock from wake to wake until every tracked task is done (bounded in steps). */
    async run(maxSteps = 10_000) {
      for (let i = 0; i < maxSteps; i++) {
        await scheduler.idle();
        if (running === 0) return;
        sleepers.sort((a, b) => a.at - b.at);
        const s = sleepers.shift();
        if (s.at > clock.nowMs()) clock.set(s.at);
        s.resolve();
      }
      throw new Error(`still running after ${maxSteps} wakes`);
    },
  };
  return scheduler;
}

/**
 * A loopback receiver: `respond(path, nowMs, n)` -> {status, headers?} for
 * the n-th request (1-based) to a path; every request is recorded as
 * {path, at_ms (virtual), event_id, attempt}.
 */
export async function startReceiver(clock, respond) {
  const requests = [];
  const counts = new Map();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const n = (counts.get(req.url) ?? 0) + 1;
      counts.set(req.url, n);
      requests.push({ path: req.url, at_ms: clock.nowMs(), event_id: req.headers['x-event-id'], attempt: Number(req.headers['x-attempt']) });
      const { status, headers = {} } = respond(req.url, clock.nowMs(), n);
      res.writeHead(status, headers).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(resolve);
    }),
  };
}
