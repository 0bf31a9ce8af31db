-- Sliding log, mirroring core/slidinglog.go line for line.
--
-- State: one sorted set of the allowed units, scored by their time (Unix
-- ms). A unit charged at t is the member "t:i" (both in base 36), where i is
-- its position in the log once charged (count + 1, count + 2, ...). Members
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

local function log_report(s, now, limit, window)
  local remaining, reset = math.max(0, limit - s.n), 0
  if s.n > 0 then
    reset = s.newest + window - now
  end
  return remaining, reset
end

-- log_eval clamps now to the newest unit, prunes the units that left the
-- window (t ≤ now − W) and reports whether cost more units fit.
local function log_eval(key, now, limit, window, cost)
  local s = {newest = log_score(key, -1), n = 0}
  if s.newest then
    now = math.max(now, s.newest)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now - window))
    s.n = redis.call('ZCARD', key)
  end
  local remaining, reset = log_report(s, now, limit, window)
  local allowed, retry = s.n + cost <= limit, 0
  if not allowed then
    local j = s.n + cost - limit
    if j <= s.n then
      retry = log_score(key, j - 1) + window - now
    else
      -- Only when the limit was lowered below the cost in flight:
      -- everything must leave the window first.
      retry = (s.newest or now) + window - now
    end
  end
  return s, allowed, remaining, reset, retry
end

-- log_charge records cost units at now, after a log_eval that allowed them.
local function log_charge(key, s, now, limit, window, cost)
  if s.n > 0 then
    now = math.max(now, s.newest)
  end
  local seq = s.n
  local t, name = int(now), enc(now) .. ':'
  local i = 0
  while i < cost do
    -- ZADD in batches, keeping the argument list small.
    local args = {}
    for _ = 1, math.min(cost - i, 500) do
      i = i + 1
      args[#args + 1] = t
      args[#args + 1] = name .. enc(seq + i)
    end
    redis.call('ZADD', key, unpack(args))
  end
  redis.call('PEXPIRE', key, int(window + ttl_slack))
  s.n, s.newest = s.n + cost, now
  return log_report(s, now, limit, window)
end
