-- Sliding log, mirroring core/internal/algo/slidinglog.go.
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
-- No command ever leaves the set empty before the script touches it again:
-- on a Redis Cluster whose slot is migrating, a script that reads or
-- writes a key it has just emptied is refused by the server after its
-- earlier writes ("non local key"), which would lose charges. So the eval
-- block only reads (the members that left the window are skipped, by
-- score, not deleted), a member is replaced by adding the new one before
-- removing the old, and the charge block prunes last, after adding.
--
-- Two blocks that go generate pastes into the drivers (see docs/redis-scripts.md).

-- @eval: SlidingLogState.Eval: rebase a log more than a window in the
-- future (the clock stepped back) to one member at up (dated like an
-- admission now), keeping the units of every member (the set holds those
-- that counted at its last charge: nothing else removes any), then read
-- the members still in the window (t > now - W) without removing the
-- others (the charge block prunes them). a, b, c = newest instant (or
-- nil), count, newest sum.
local newest, count, top, base = nil, 0, 0, 0
local edge = string.format('(%d', now - window)
local r = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
if r[2] then
  newest = tonumber(r[2])
  top = cmsgpack.unpack(r[1])
  if newest > now + window then
    local s0, w0 = cmsgpack.unpack(redis.call('ZRANGE', key, 0, 0)[1])
    top = top - (s0 - w0)
    newest = up
    redis.call('ZADD', key, string.format('%d', up), cmsgpack.pack(top, top))
    redis.call('ZREMRANGEBYSCORE', key, string.format('(%d', up), '+inf')
    redis.call('PEXPIRE', key, string.format('%d', window + ttl_slack))
  end
  local first = redis.call('ZRANGEBYSCORE', key, edge, '+inf', 'LIMIT', 0, 1)
  if first[1] then
    local s0, w0 = cmsgpack.unpack(first[1])
    base = s0 - w0
    count = top - base
  else
    newest, top = nil, 0 -- nothing in the window: the sums start again from zero
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
  -- Ranks start after the members that left the window.
  local need, at = count + cost - limit, newest or now
  if need <= count then
    local lo, hi = redis.call('ZCOUNT', key, '-inf', string.format('%d', now - window)), redis.call('ZCARD', key) - 1
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
-- up), or at the newest member's instant if that is later; then the
-- members that left the window are pruned (the new one keeps the set from
-- emptying).
local t, top = up, c
if a then
  if a > t then
    t = a
  end
  if top + cost > 4503599627370496 then
    -- Past 2^52 the sums would lose exactness as doubles: renumber them
    -- from zero (rare: every member is rewritten once, oldest first, each
    -- new member added before the old one is removed; sums only shrink,
    -- so a new member never equals one not yet rewritten).
    local base = top - b
    local all = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
    for i = 1, #all, 2 do
      local s, w = cmsgpack.unpack(all[i])
      redis.call('ZADD', key, all[i + 1], cmsgpack.pack(s - base, w))
      redis.call('ZREM', key, all[i])
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
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now - window))
redis.call('PEXPIRE', key, string.format('%d', t - now + window + ttl_slack))
remaining, reset = limit - b - cost, t + window - now
if remaining < 0 then
  remaining = 0
end
