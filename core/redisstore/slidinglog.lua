-- Sliding log, mirroring core/slidinglog.go.
--
-- State: one sorted set with one member per admitted request (requests in
-- one millisecond share one), scored by its instant (Unix ms, rounded up).
-- The member is cmsgpack(sum, w): w, the request's units, and sum, the
-- running total of the units admitted up to and including it. Sums grow
-- strictly, so members never collide; the count in the window is the
-- newest sum minus the oldest's (sum - w). A request of any cost is one
-- member of a few bytes, and one call does O(log n) work in the n members
-- (a binary search by rank on a denial) plus the pruning of expired
-- members, each removed once.
--
-- Two blocks that go generate pastes into the drivers (see docs/redis-scripts.md).

-- @eval: SlidingLogState.Eval: rebase a log more than a window in the
-- future (the clock stepped back), prune the members that left the window
-- (t <= now - W). a, b, c = newest instant (or nil), count, newest sum.
local newest, count, top, base = nil, 0, 0, 0
local r = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if r[2] then
  newest = tonumber(r[2])
  top = cmsgpack.unpack(r[1])
  if newest > now + window then
    local s0, w0 = cmsgpack.unpack(redis.call('ZRANGE', key, 0, 0)[1])
    top = top - (s0 - w0)
    newest = now
    redis.call('DEL', key)
    redis.call('ZADD', key, string.format('%d', now), cmsgpack.pack(top, top))
    redis.call('PEXPIRE', key, string.format('%d', window + ttl_slack))
  else
    redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - window))
  end
  local first = redis.call('ZRANGE', key, 0, 0)
  if first[1] then
    local s0, w0 = cmsgpack.unpack(first[1])
    base = s0 - w0
    count = top - base
  else
    newest, top = nil, 0 -- empty: the sums start again from zero
  end
end
remaining, reset = limit - count, 0
if remaining < 0 then
  remaining = 0
end
if newest then
  reset = newest + window - now
end
allowed, retry = count + cost <= limit, 0
if not allowed then
  -- The oldest member whose leaving frees need units, or the newest when
  -- even all of them do not (a limit lowered below the cost in flight).
  local need, at = count + cost - limit, newest or now
  if need <= count then
    local lo, hi = 0, redis.call('ZCARD', key) - 1
    while lo < hi do
      local mid = (lo + hi - (lo + hi) % 2) / 2
      if cmsgpack.unpack(redis.call('ZRANGE', key, mid, mid)[1]) - base >= need then
        hi = mid
      else
        lo = mid + 1
      end
    end
    at = tonumber(redis.call('ZRANGE', key, lo, lo, 'WITHSCORES')[2])
  end
  retry = at + window - now
end
a, b, c = newest, count, top

-- @charge: SlidingLogState.Charge: one member at up (the instant rounded
-- up), or at the newest member's instant if that is later.
local t, top = up, c
if a then
  if a > t then
    t = a
  end
  if top + cost > 4503599627370496 then
    -- Past 2^52 the sums would lose exactness as doubles: renumber them
    -- from zero (rare: every member is rewritten once).
    local base = top - b
    local all = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
    redis.call('DEL', key)
    for i = 1, #all, 2 do
      local s, w = cmsgpack.unpack(all[i])
      redis.call('ZADD', key, all[i + 1], cmsgpack.pack(s - base, w))
    end
    top = top - base
  end
end
if a == t then
  -- Same instant as the newest member: it absorbs this request. The new
  -- member goes in before the old one goes out, so the key never stops
  -- existing mid-script: in a slot being migrated, Redis fails a command
  -- on a missing key (it belongs to the target node).
  local m = redis.call('ZRANGE', key, -1, -1)[1]
  local s, w = cmsgpack.unpack(m)
  redis.call('ZADD', key, string.format('%d', t), cmsgpack.pack(s + cost, w + cost))
  redis.call('ZREM', key, m)
else
  redis.call('ZADD', key, string.format('%d', t), cmsgpack.pack(top + cost, cost))
end
redis.call('PEXPIRE', key, string.format('%d', t - now + window + ttl_slack))
remaining, reset = limit - b - cost, t + window - now
if remaining < 0 then
  remaining = 0
end
