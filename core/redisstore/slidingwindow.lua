-- Sliding window counter, mirroring core/slidingwindow.go.
--
-- State: one string key holding three integers packed with cmsgpack: the
-- current bucket's index (its start is index × window, in Unix ms), the
-- units of the bucket before it and of the current one.
--
-- Two blocks that go generate pastes into the drivers (see
-- docs/redis-scripts.md). Go's integer division truncates toward zero;
-- floor agrees wherever the quotient cannot be negative, and the one that
-- can is truncated by hand.

-- @eval: SlidingWindowState.Eval. a, b, c = start, prev, curr.
local start, prev, curr = 0, 0, 0
local v = redis.call('GET', key)
if v then
  -- Anything but three packed numbers reads as no state: it starts over.
  local ok, index, p, q, extra = pcall(cmsgpack.unpack, v)
  if ok and type(index) == 'number' and type(p) == 'number' and type(q) == 'number' and extra == nil then
    start, prev, curr = index * window, p, q
  end
end
-- advance
local s = now - now % window -- windowStart (Lua's % is never negative here)
if now < start - window then
  -- The clock stepped back more than a window: both buckets move back to
  -- the one holding now, counts kept (even on a denial).
  start = s
  redis.call('SET', key, cmsgpack.pack(start / window, prev, curr), 'PX', string.format('%d', 2 * window + ttl_slack))
elseif s > start then
  if s == start + window then
    prev, curr = curr, 0
  else
    prev, curr = 0, 0
  end
  start = s
end
local t = now
if t < start then
  t = start
end
local elapsed = t - start
-- weighted: the estimate multiplied by window
local weighted = prev * (window - elapsed) + curr * window
-- report: x - x % 1 is floor(x); a negative quotient is 0 either way
remaining, reset = (limit * window - weighted) / window, 0
remaining = remaining - remaining % 1
if remaining < 0 then
  remaining = 0
end
if curr > 0 then
  reset = 2 * window - elapsed
elseif prev > 0 then
  reset = window - elapsed
end
allowed, retry = weighted + cost * window <= limit * window, 0
if not allowed then
  -- retryAfter
  local room = (limit - curr - cost) * window
  if room >= 0 and prev > 0 then
    -- Still in this bucket: need prev·(W − elapsed − d) ≤ room.
    retry = math.max(0, window - elapsed - math.floor(room / prev))
  elseif curr == 0 then
    retry = window - elapsed
  else
    -- Next bucket, where prev becomes curr: need curr·(W − e) ≤ (L − c)·W.
    -- L − c may be negative: truncate toward zero, as Go does.
    local q = (limit - cost) * window / curr
    if q >= 0 then
      q = math.floor(q)
    else
      q = math.ceil(q)
    end
    retry = window - elapsed + math.max(0, window - q)
  end
end
if t > now then
  -- The clock is behind the state: the waits run from now.
  if retry > 0 then
    retry = retry + t - now
  end
  if reset > 0 then
    reset = reset + t - now
  end
end
a, b, c = start, prev, curr

-- @charge: SlidingWindowState.Charge, then the state is stored.
local curr = c + cost
redis.call('SET', key, cmsgpack.pack(a / window, b, curr), 'PX', string.format('%d', 2 * window + ttl_slack))
local elapsed = 0
if now > a then
  elapsed = now - a
end
remaining = (limit * window - b * (window - elapsed) - curr * window) / window
remaining = remaining - remaining % 1
if remaining < 0 then
  remaining = 0
end
reset = 2 * window - elapsed -- curr > 0
if now < a then
  reset = reset + a - now
end
