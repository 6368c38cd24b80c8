-- Retry-budget store for Redis: the store protocol of the conformance
-- contract (SPEC "The store protocol"), one script loaded by every host
-- (Rust, Node, Python, Go) with SCRIPT LOAD / EVALSHA. See fleet/README.md.
--
-- One call per attempt: the policy's `evaluate` hands the host a store
-- request {op, endpoint_id, window_ms, bucket}; the host answers it with ONE
-- EVALSHA of this script (on NOSCRIPT nothing ran: send that one command
-- again as EVAL) and hands the reply to `settle`.
--
-- KEYS[1] = the store key, `store-key(request)` from the component:
--           "rb:{e<lowercase hex of the endpoint id's bytes>}:<window_ms>"
--           (a hash; one key per endpoint and bucket width, so one Redis
--           Cluster slot, injective for ids of any content)
-- ARGV[1] = op: "record" | "reserve" | "record_reserve"
-- ARGV[2] = bucket       (integer below 2^53, computed by the policy)
-- ARGV[3] = window_ms    (integer >= 1, below 2^53)
-- ARGV[4] = now_ms       (integer below 2^53, the caller's clock)
-- ARGV[5] = ratio        (shortest round-trip decimal of the double)
-- ARGV[6] = min_sample   (integer)
-- ARGV[7] = sliding      "1" | "0"
-- ARGV[8] = skew check   "1" | "0": when "1", now_ms is compared with Redis
--           TIME; if they differ by more than window_ms / 4 the call is an
--           error reply naming the skew (hosts treat every error as
--           "store unavailable": the budget fails closed). Nothing is
--           written then.
--
-- Hash fields: "t:<bucket>" = attempts (first ones and retries) and
-- "r:<bucket>" = retries of that bucket. Only the newest bucket and the one
-- before it are kept (normally: the request's bucket and the one before
-- it); every other bucket's fields are deleted in the same call, so the
-- hash holds at most four fields (a call that rolls forward to a new bucket
-- writes its "t:<bucket>" even when it counts nothing, so the newest bucket
-- seen is always on record). A request for a bucket older than both
-- kept ones (a caller far behind; impossible with the skew check on) reads
-- zeros and counts nothing -- exactly the in-memory store's rule
-- (policy-core `store::apply`). Every write PEXPIREs the key to
-- 3 * window_ms: an idle endpoint costs nothing after three windows.
--
-- Ops (each atomic: Redis runs one script at a time):
--   record          total + 1 in the bucket (a first attempt whose outcome
--                   is known and that needs no retry).
--   reserve         judge allows_retry (SPEC "Retry budget") on
--                   {current = bucket, previous = bucket - 1}; if it allows,
--                   total + 1 and retries + 1 (the retry is counted now; the
--                   attempt it leads to is never recorded again).
--   record_reserve  record, then reserve, in this one call (the judged
--                   counts include the recorded attempt).
--   anything else   error reply, nothing written.
--
-- Reply: {reserved (0/1), cur_total, cur_retries, prev_total, prev_retries}
-- -- the counts the reservation was judged on (for `record`: the counts
-- after counting), as integers. The host builds
-- {reserved, counts: {current, previous}} from it for `settle`.
--
-- The rule is computed in doubles (Lua numbers are doubles) in exactly the
-- SPEC's order; tests/fleet/test_lua_agreement.py runs every budget vector
-- and every format-2 settle case through this script to prove it decides
-- exactly as the component does.

local op = ARGV[1]
if op ~= 'record' and op ~= 'reserve' and op ~= 'record_reserve' then
  return redis.error_reply('budget.lua: unknown op ' .. tostring(op))
end
local bucket = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
if not bucket or bucket < 0 or bucket ~= math.floor(bucket) then
  return redis.error_reply('budget.lua: bad bucket ' .. tostring(ARGV[2]))
end
if not window or window < 1 or window ~= math.floor(window) then
  return redis.error_reply('budget.lua: bad window_ms ' .. tostring(ARGV[3]))
end
if not now or now < 0 then
  return redis.error_reply('budget.lua: bad now_ms ' .. tostring(ARGV[4]))
end
local reserving = op ~= 'record'
local ratio, min_sample, sliding
if reserving then
  ratio = tonumber(ARGV[5])
  min_sample = tonumber(ARGV[6])
  sliding = ARGV[7] == '1'
  if not ratio or not min_sample then
    return redis.error_reply('budget.lua: bad ratio or min_sample')
  end
end

if ARGV[8] == '1' then
  local t = redis.call('TIME')
  local server_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local skew = now - server_ms
  if math.abs(skew) > window / 4 then
    return redis.error_reply(string.format(
      'budget.lua: clock skew %.0f ms between the caller (now_ms %.0f) and Redis TIME (%.0f) exceeds window_ms/4 (%.0f)',
      skew, now, server_ms, window / 4))
  end
end

local key = KEYS[1]
-- Integers below 2^53 as decimal field names ('%.0f' is exact there;
-- tostring would use '%.14g' and lose digits).
local function dec(n) return string.format('%.0f', n) end

-- The newest bucket held, and clean-up of every bucket but newest, newest-1.
local newest = bucket
local fields = redis.call('HKEYS', key)
for _, f in ipairs(fields) do
  local b = tonumber(string.sub(f, 3))
  if b and b > newest then newest = b end
end
local wrote = false
for _, f in ipairs(fields) do
  local b = tonumber(string.sub(f, 3))
  if not b or b < newest - 1 then
    redis.call('HDEL', key, f)
    wrote = true
  end
end
-- A bucket older than both held ones reads zeros and counts nothing.
local countable = bucket >= newest - 1

local cur_t, cur_r = 't:' .. dec(bucket), 'r:' .. dec(bucket)
-- Rolled forward to a new newest bucket: keep a note of it even if this call
-- counts nothing (a refused reserve), so a later, older caller is judged
-- against the newest bucket seen, as store::apply does.
if bucket == newest and redis.call('HSETNX', key, cur_t, 0) == 1 then wrote = true end
local function get(f) return tonumber(redis.call('HGET', key, f) or '0') end
local function count(retry)
  if not countable then return end
  redis.call('HINCRBY', key, cur_t, 1)
  if retry then redis.call('HINCRBY', key, cur_r, 1) end
  wrote = true
end

if op == 'record' or op == 'record_reserve' then count(false) end

local ct, cr = get(cur_t), get(cur_r)
local pt, pr = 0, 0
if bucket >= 1 and bucket - 1 >= newest - 1 then
  pt, pr = get('t:' .. dec(bucket - 1)), get('r:' .. dec(bucket - 1))
end

local reserved = 0
if reserving then
  local w = 0.0
  if sliding then
    -- now % window, exactly: both are integers below 2^53.
    local rem = now - math.floor(now / window) * window
    if rem < 0 then rem = rem + window end
    if rem >= window then rem = rem - window end
    w = (window - rem) / window
  end
  local est_total = ct + pt * w
  local est_retries = cr + pr * w
  local allows
  if est_total < min_sample then
    allows = true
  else
    allows = (est_retries + 1.0) <= ratio * (est_total + 1.0)
  end
  if allows then
    count(true)
    reserved = 1
  end
end

if wrote and redis.call('EXISTS', key) == 1 then
  redis.call('PEXPIRE', key, dec(window * 3))
end

return {reserved, ct, cr, pt, pr}
