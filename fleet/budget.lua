-- Retry-budget counter for Redis: one script, loaded by every host
-- (Rust, Node, Python, Go) with SCRIPT LOAD / EVALSHA. See fleet/README.md.
--
-- KEYS[1] = current bucket key, KEYS[2] = previous bucket key, both
--           "rb:{<endpoint_id>}:<window_ms>:<bucket>" (hash-tagged per
--           endpoint, so both live in one Redis Cluster slot)
-- ARGV[1] = mode: "record" | "reserve" | "read"
-- ARGV[2] = is_retry (record): "1" or "0"
-- ARGV[3] = now_ms     ARGV[4] = window_ms   (integers below 2^53)
-- ARGV[5] = ratio      ARGV[6] = min_sample  ARGV[7] = sliding ("1"/"0")
--           (reserve only)
--
-- Returns {cur_total, cur_retries, prev_total, prev_retries, reserved}:
-- the counts as they were BEFORE this call changed anything, so a host can
-- hand them to the policy's `decide-with` and get the same answer the
-- script acted on. reserved is 1 when a retry was reserved (reserve mode).
--
-- record:  count one attempt (and one retry if is_retry) in the current bucket.
-- reserve: atomically check the budget and, if it allows, count the retry
--          (total and retries) — replicas racing on one endpoint cannot
--          overshoot, because the check and the increment are one step.
-- read:    change nothing.
--
-- The check is the contract's budget rule (SPEC "Retry budget"), in doubles
-- in the same order as the policy core; tests/fleet runs the budget vectors
-- through this script to prove it decides exactly as the component does.

local mode = ARGV[1]
local now = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local ttl = window * 3

local ct = tonumber(redis.call('HGET', KEYS[1], 't') or '0')
local cr = tonumber(redis.call('HGET', KEYS[1], 'r') or '0')
local pt = tonumber(redis.call('HGET', KEYS[2], 't') or '0')
local pr = tonumber(redis.call('HGET', KEYS[2], 'r') or '0')

local function bump(retry)
  redis.call('HINCRBY', KEYS[1], 't', 1)
  if retry then redis.call('HINCRBY', KEYS[1], 'r', 1) end
  redis.call('PEXPIRE', KEYS[1], ttl)
end

local reserved = 0
if mode == 'record' then
  bump(ARGV[2] == '1')
elseif mode == 'reserve' then
  local ratio = tonumber(ARGV[5])
  local min_sample = tonumber(ARGV[6])
  local w = 0.0
  if ARGV[7] == '1' then
    -- now % window, exactly: both are integers below 2^53.
    local rem = now - math.floor(now / window) * window
    if rem < 0 then rem = rem + window end
    if rem >= window then rem = rem - window end
    w = (window - rem) / window
  end
  local est_total = ct + pt * w
  local est_retries = cr + pr * w
  local allows = (est_total < min_sample) or ((est_retries + 1.0) <= ratio * (est_total + 1.0))
  if allows then
    bump(true)
    reserved = 1
  end
elseif mode ~= 'read' then
  return redis.error_reply('budget.lua: unknown mode ' .. tostring(mode))
end

return {ct, cr, pt, pr, reserved}
