-- Sliding log, mirroring core/slidinglog.go line for line.
--
-- State: one sorted set of the allowed units, scored by their time (Unix
-- ms). A unit charged at t is the member cmsgpack(t, i), where i is its
-- position in the log once charged (count + 1, count + 2, ...). Members
-- never collide, so two requests in one millisecond are never collapsed
-- into one: every unit already at t was charged earlier at t, when the log
-- was no longer than it is now (time never runs backward for a key, and
-- pruning at t removes nothing charged at t), so its i is at most count.

-- log_score returns the score of the member at rank i (0 is the oldest,
-- -1 the newest), or nil when there is none.
local function log_score(key, i)
  local r = redis.call('ZRANGE', key, i, i, 'WITHSCORES')
  if r[2] then
    return tonumber(r[2])
  end
  return nil
end

local function log_report(newest, n, now, limit, window)
  local remaining, reset = math.max(0, limit - n), 0
  if n > 0 then
    reset = newest + window - now
  end
  return remaining, reset
end

-- log_eval clamps now to the newest unit, prunes the units that left the
-- window (t ≤ now − W) and reports whether cost more units fit. It returns
-- the state (newest, count, unused) and the policy's state.
local function log_eval(key, now, limit, window, cost)
  local newest, n = log_score(key, -1), 0
  if newest then
    now = math.max(now, newest)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
    n = redis.call('ZCARD', key)
  end
  local remaining, reset = log_report(newest, n, now, limit, window)
  local allowed, retry = n + cost <= limit, 0
  if not allowed then
    local j = n + cost - limit
    if j <= n then
      retry = log_score(key, j - 1) + window - now
    else
      -- Only when the limit was lowered below the cost in flight:
      -- everything must leave the window first.
      retry = (newest or now) + window - now
    end
  end
  return newest, n, 0, allowed, remaining, reset, retry
end

-- log_charge records cost units at now, after a log_eval that allowed them.
local function log_charge(key, newest, n, _, now, limit, window, cost)
  if n > 0 then
    now = math.max(now, newest)
  end
  local t = int(now)
  local i = 0
  while i < cost do
    -- ZADD in batches, keeping the argument list small.
    local args = {}
    for _ = 1, math.min(cost - i, 500) do
      i = i + 1
      args[#args + 1] = t
      args[#args + 1] = cmsgpack.pack(now, n + i)
    end
    redis.call('ZADD', key, unpack(args))
  end
  redis.call('PEXPIRE', key, int(window + ttl_slack))
  return log_report(now, n + cost, now, limit, window)
end
