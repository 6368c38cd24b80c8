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
-- ARGV[1] = op: "record" | "reserve" | "record_reserve" (health calls also
--           "report" | "probe", see below)
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
--
-- Format 3: endpoint health (docs/health.md sections 2-3). A call with more
-- than 8 arguments is a health call and must have exactly 18; a call with
-- at most 8 is a format-2 call and behaves exactly as described above (it
-- reads and writes no health field, replies 5 integers).
-- ARGV[9]  = outcome         "success" | "failure" | "none"
-- ARGV[10] = pause_until_ms  0, or when a Retry-After pause ends (integer
--            below 2^53)
-- ARGV[11] = probe           "1" | "0": the attempt was a granted probe
-- ARGV[12] = circuit         "1" | "0" ("0": the section's circuit is null;
--            ARGV[13..18] are then not read, send "0")
-- ARGV[13] = failure_ratio   (shortest round-trip decimal, 0 < x <= 1)
-- ARGV[14] = min_sample      (integer >= 1, of the circuit)
-- ARGV[15] = cooldown_ms     (1..86400000)
-- ARGV[16] = cooldown_max_ms (cooldown_ms..86400000)
-- ARGV[17] = probes          (1..100)
-- ARGV[18] = probe_interval_ms (1..3600000)
-- Health calls add two ops: "report" (no format-2 effect, only the health
-- steps) and "probe" (ask for a probe: outcome "none", pause_until_ms 0,
-- probe "0"; the bucket is validated but not used). Bad health arguments
-- are an error reply naming the argument; nothing is written.
--
-- Health fields, in the same hash: "f:<bucket>" = failed attempts of that
-- bucket (the newest failure bucket and the one before it are kept, rolled
-- forward when a failure is counted, as policy-core `health::apply`), and
-- "paused_until_ms", "opened_at_ms", "cooldown_ms", "probe_window",
-- "probes_granted", "closed_at_ms", "consecutive_failures",
-- "probes_in_flight", "probe_busy_until_ms" (absent = 0; a
-- field that becomes 0 is deleted, so a healthy endpoint's hash holds only
-- its t:/r: fields). After the format-2 effect, in the same call: a failure
-- adds 1 to f:<bucket> and, when it carries no pause, to
-- consecutive_failures (a success sets that to 0); the pause only grows; a
-- closed circuit opens when consecutive_failures >= ceil(min_sample *
-- failure_ratio) (at least 1), or when
-- est_total >= min_sample and est_failures / est_total >= failure_ratio
-- (est_failures = f:<bucket> + f:<bucket-1> * the budget's sliding
-- weight); an open one, on a probe's
-- result, closes (success: f: fields deleted) or reopens with the cooldown
-- doubled up to cooldown_max_ms (failure). A probe is granted only while
-- fewer than `probes` granted ones are in flight (each report takes one off;
-- all lapse at probe_busy_until_ms = the last grant + max(cooldown_ms,
-- probe_interval_ms)). A health call's write PEXPIREs
-- the key to 3 * window_ms past the later of now_ms, the pause's end and an
-- open circuit's cooldown end (a live pause or circuit never expires).
--
-- Health reply: 11 integers {reserved, cur_total, cur_retries, prev_total,
-- prev_retries, granted, paused_until_ms, opened_at_ms, cooldown_ms,
-- closed_at_ms, as_of_ms}: the format-2 five (reserved -1 and zeros for
-- report and probe: no reservation), granted (0/1 for probe, else -1), and
-- the health view (as_of_ms = now_ms). tests/fleet/test_lua_health.py runs
-- tests/vectors-health/format3-store.json through it.

local health = #ARGV > 8
local op = ARGV[1]
local budget_op = op == 'record' or op == 'reserve' or op == 'record_reserve'
if not budget_op and not (health and (op == 'report' or op == 'probe')) then
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
local reserving = budget_op and op ~= 'record'
local ratio, min_sample
local sliding = ARGV[7] == '1'
if reserving then
  ratio = tonumber(ARGV[5])
  min_sample = tonumber(ARGV[6])
  if not ratio or not min_sample then
    return redis.error_reply('budget.lua: bad ratio or min_sample')
  end
end

-- Format 3: the health arguments (header), all checked before any write.
local hp -- the health request and circuit; nil for a format-2 call
if health then
  if #ARGV ~= 18 then
    return redis.error_reply('budget.lua: a health call has 18 arguments, got ' .. #ARGV)
  end
  local function int(i, lo, hi)
    local n = tonumber(ARGV[i])
    if not n or n ~= math.floor(n) or n < lo or n > hi then return nil end
    return n
  end
  local function bad(i, name, want)
    return redis.error_reply(string.format('budget.lua: bad %s (ARGV[%d]) %q: want %s',
      name, i, tostring(ARGV[i]), want))
  end
  hp = {outcome = ARGV[9], pause_until = int(10, 0, 2^53 - 1), probe = ARGV[11]}
  if hp.outcome ~= 'success' and hp.outcome ~= 'failure' and hp.outcome ~= 'none' then
    return bad(9, 'outcome', 'success, failure or none')
  end
  if not hp.pause_until then return bad(10, 'pause_until_ms', 'an integer in [0, 2^53)') end
  if hp.probe ~= '1' and hp.probe ~= '0' then return bad(11, 'probe', '1 or 0') end
  hp.probe = hp.probe == '1'
  if op == 'probe' and (hp.outcome ~= 'none' or hp.pause_until ~= 0 or hp.probe) then
    return redis.error_reply('budget.lua: a probe call follows no attempt: outcome none, pause_until_ms 0, probe 0')
  end
  if ARGV[12] == '1' then
    local r = tonumber(ARGV[13])
    -- r == r: not NaN; r <= 1 also rules out +inf.
    if not r or r ~= r or not (r > 0 and r <= 1) then return bad(13, 'failure_ratio', '0 < x <= 1') end
    local c = {failure_ratio = r, min_sample = int(14, 1, math.huge), cooldown = int(15, 1, 86400000)}
    if not c.min_sample then return bad(14, 'circuit min_sample', 'an integer >= 1') end
    if not c.cooldown then return bad(15, 'cooldown_ms', 'an integer in [1, 86400000]') end
    c.cooldown_max = int(16, c.cooldown, 86400000)
    if not c.cooldown_max then return bad(16, 'cooldown_max_ms', 'an integer in [cooldown_ms, 86400000]') end
    c.probes = int(17, 1, 100)
    if not c.probes then return bad(17, 'probes', 'an integer in [1, 100]') end
    c.probe_interval = int(18, 1, 3600000)
    if not c.probe_interval then return bad(18, 'probe_interval_ms', 'an integer in [1, 3600000]') end
    hp.circuit = c
  elseif ARGV[12] ~= '0' then
    return bad(12, 'circuit', '1 or 0')
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
local function get(f) return tonumber(redis.call('HGET', key, f) or '0') end
local wrote = false

-- The budget's sliding weight of the previous bucket at now_ms (0 if fixed).
local function weight()
  local w = 0.0
  if sliding then
    -- now % window, exactly: both are integers below 2^53.
    local rem = now - math.floor(now / window) * window
    if rem < 0 then rem = rem + window end
    if rem >= window then rem = rem - window end
    w = (window - rem) / window
  end
  return w
end

-- The health fields a format-2 call leaves alone; every other field that is
-- not t:/r: of a kept bucket is deleted by the clean-up below.
local HEALTH = {'paused_until_ms', 'opened_at_ms', 'cooldown_ms', 'probe_window', 'probes_granted', 'closed_at_ms',
                'consecutive_failures', 'probes_in_flight', 'probe_busy_until_ms'}
local is_health = {}
for _, f in ipairs(HEALTH) do is_health[f] = true end
local fields = redis.call('HKEYS', key)
local fail_fields = {}

-- The format-2 effect: returns {reserved, ct, cr, pt, pr}.
local function budget_effect()
  -- The newest bucket held, and clean-up of every bucket but newest, newest-1.
  local newest = bucket
  local count_fields = {}
  for _, f in ipairs(fields) do
    local p = string.sub(f, 1, 2)
    if p == 'f:' then
      fail_fields[#fail_fields + 1] = f
    elseif not is_health[f] then
      count_fields[#count_fields + 1] = f
      local b = tonumber(string.sub(f, 3))
      if b and b > newest then newest = b end
    end
  end
  for _, f in ipairs(count_fields) do
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
    local w = weight()
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
  return {reserved, ct, cr, pt, pr}
end

local reply = {-1, 0, 0, 0, 0}
if budget_op then
  reply = budget_effect()
else
  for _, f in ipairs(fields) do
    if string.sub(f, 1, 2) == 'f:' then fail_fields[#fail_fields + 1] = f end
  end
end
local ttl_from = now

if hp then
  -- The health steps (docs/health.md section 3), after the format-2 effect.
  local vals = redis.call('HMGET', key, unpack(HEALTH))
  local h, was = {}, {}
  for i, f in ipairs(HEALTH) do
    h[f] = tonumber(vals[i] or '0') or 0
    was[f] = h[f]
  end
  local granted = -1
  local c = hp.circuit
  if op == 'probe' then
    -- Grant when open, the cooldown is over and the probe window (a later
    -- window resets the count) has one left.
    granted = 0
    if c and h.opened_at_ms ~= 0 and now >= h.opened_at_ms + h.cooldown_ms then
      local pw = math.floor(now / c.probe_interval)
      if pw > h.probe_window then
        h.probe_window = pw
        h.probes_granted = 0
      end
      -- Draft 7: at most `probes` granted probes in flight, until their
      -- lease (max(cooldown_ms, probe_interval_ms) from the last grant) lapses.
      if now >= h.probe_busy_until_ms then h.probes_in_flight = 0 end
      if h.probes_granted < c.probes and h.probes_in_flight < c.probes then
        h.probes_granted = h.probes_granted + 1
        h.probes_in_flight = h.probes_in_flight + 1
        h.probe_busy_until_ms = now + math.max(h.cooldown_ms, c.probe_interval)
        granted = 1
      end
    end
  else
    -- 2. A pause only grows.
    if hp.pause_until > h.paused_until_ms then h.paused_until_ms = hp.pause_until end
    if c then
      local was_open = h.opened_at_ms ~= 0
      if hp.probe then
        -- Draft 7: a granted probe reported; none left in flight frees the slot.
        h.probes_in_flight = math.max(0, h.probes_in_flight - 1)
        if h.probes_in_flight == 0 then h.probe_busy_until_ms = 0 end
      end
      -- The failure buckets: the newest one and the one before it.
      local newest_f
      for _, f in ipairs(fail_fields) do
        local b = tonumber(string.sub(f, 3))
        if b and (not newest_f or b > newest_f) then newest_f = b end
      end
      -- 1. Count the failure, rolling forward to its bucket first; a bucket
      -- older than both held ones is read by no one: dropped.
      if hp.outcome == 'failure' then
        if not newest_f or bucket > newest_f then newest_f = bucket end
        if bucket >= newest_f - 1 then
          redis.call('HINCRBY', key, 'f:' .. dec(bucket), 1)
          wrote = true
        end
      end
      for _, f in ipairs(fail_fields) do
        local b = tonumber(string.sub(f, 3))
        if not b or b < newest_f - 1 then
          redis.call('HDEL', key, f)
          wrote = true
        end
      end
      -- The run of failures since the last success (draft 6); a failure
      -- carrying a pause (a throttled answer) is not counted.
      if hp.outcome == 'failure' and hp.pause_until == 0 then
        h.consecutive_failures = h.consecutive_failures + 1
      elseif hp.outcome == 'success' then
        h.consecutive_failures = 0
      end
      if not was_open then
        -- 3. Open: the estimates on the counts after the format-2 effect.
        local w = weight()
        local total_prev, fail_prev = 0, 0
        if bucket >= 1 then
          total_prev, fail_prev = get('t:' .. dec(bucket - 1)), get('f:' .. dec(bucket - 1))
        end
        local est_total = get('t:' .. dec(bucket)) + total_prev * w
        local est_failures = get('f:' .. dec(bucket)) + fail_prev * w
        -- Or a run of ceil(min_sample * failure_ratio) failures (draft 6: the
        -- fewest the estimates can ever open on).
        local run = math.max(1, math.min(math.ceil(c.min_sample * c.failure_ratio), c.min_sample))
        if h.consecutive_failures >= run
           or (est_total >= c.min_sample and est_failures / est_total >= c.failure_ratio) then
          h.opened_at_ms = math.max(now, 1)
          h.cooldown_ms = c.cooldown
        end
      elseif hp.probe and hp.outcome == 'success' then
        -- 4. The probe succeeded: closed, failures forgotten.
        h.opened_at_ms = 0
        h.closed_at_ms = now
        h.cooldown_ms = 0
        -- (a success counted no failure: fail_fields are all the f: fields)
        for _, f in ipairs(fail_fields) do
          if redis.call('HDEL', key, f) == 1 then wrote = true end
        end
      elseif hp.probe and hp.outcome == 'failure' and now - h.opened_at_ms >= h.cooldown_ms then
        -- 4. The probe failed: reopened, the cooldown doubled up to its cap
        -- (once per failed round: a second probe failing inside the cooldown
        -- the first one's failure started moves nothing).
        h.opened_at_ms = math.max(now, 1)
        h.cooldown_ms = math.min(2 * h.cooldown_ms, c.cooldown_max)
      end
    end
  end
  for _, f in ipairs(HEALTH) do
    if h[f] ~= was[f] then
      if h[f] == 0 then redis.call('HDEL', key, f) else redis.call('HSET', key, f, dec(h[f])) end
      wrote = true
    end
  end
  ttl_from = math.max(now, h.paused_until_ms)
  if h.opened_at_ms ~= 0 then ttl_from = math.max(ttl_from, h.opened_at_ms + h.cooldown_ms) end
  reply[6] = granted
  reply[7], reply[8], reply[9], reply[10] = h.paused_until_ms, h.opened_at_ms, h.cooldown_ms, h.closed_at_ms
  reply[11] = now
end

if wrote and redis.call('EXISTS', key) == 1 then
  redis.call('PEXPIRE', key, dec(ttl_from - now + window * 3))
end

return reply
