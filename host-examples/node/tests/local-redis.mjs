// A private redis-server on a free loopback port for one test file (not a
// test itself: no `.test.` in its name). Shared by the Redis store tests.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import Redis from 'ioredis';

export const haveRedis = spawnSync('redis-server', ['--version']).status === 0;

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Start redis-server (no persistence, its files in a temp dir named after
 * `prefix`) on `port` (default a free one) and connect one client to it,
 * waiting up to 5 s.
 * @returns {Promise<{port: number, server: import('node:child_process').ChildProcess, redis: Redis}>}
 */
export async function startRedis(prefix, port = null) {
  port ??= await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
  for (let i = 0; i < 100; i++) {
    try {
      await redis.connect();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { port, server, redis };
}
