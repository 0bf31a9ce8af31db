-- Sliding log, mirroring core/slidinglog.go.
--
-- State: one sorted set of the allowed units, scored by their time (Unix
-- ms). A unit charged at t is the member cmsgpack(t, i), where i is its
-- position in the log once charged (count + 1, count + 2, ...). Members
-- never collide, so two requests in one millisecond are never collapsed
-- into one: every unit already at t was charged earlier at t, when the log
-- was no longer than it is now (time never runs backward for a key, and
-- pruning at t removes nothing charged at t), so its i is at most count.
--
-- Two blocks that script.go pastes into the drivers (see one.lua).

-- @eval: SlidingLogState.Eval: clamp now to the newest unit, prune the
-- units that left the window (t ≤ now − W). a, b = newest (or nil), count.
local newest, n, t = nil, 0, now
local r = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if r[2] then
  newest = tonumber(r[2])
  if newest > t then
    t = newest
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', t - window))
  n = redis.call('ZCARD', key)
end
remaining, reset = limit - n, 0
if remaining < 0 then
  remaining = 0
end
if n > 0 then
  reset = newest + window - t
end
allowed, retry = n + cost <= limit, 0
if not allowed then
  local j = n + cost - limit
  if j <= n then
    -- The score of the j-th oldest unit.
    r = redis.call('ZRANGE', key, j - 1, j - 1, 'WITHSCORES')
    retry = tonumber(r[2]) + window - t
  else
    -- Only when the limit was lowered below the cost in flight:
    -- everything must leave the window first.
    retry = (newest or t) + window - t
  end
end
a, b = newest, n

-- @charge: SlidingLogState.Charge: cost units at now (clamped).
local t = now
if b > 0 and a > t then
  t = a
end
local score = string.format('%d', t)
local i = 0
while i < cost do
  -- ZADD in batches, keeping the argument list small.
  local args = {}
  for _ = 1, math.min(cost - i, 500) do
    i = i + 1
    args[#args + 1] = score
    args[#args + 1] = cmsgpack.pack(t, b + i)
  end
  redis.call('ZADD', key, unpack(args))
end
redis.call('PEXPIRE', key, string.format('%d', window + ttl_slack))
remaining, reset = limit - b - cost, window
if remaining < 0 then
  remaining = 0
end
