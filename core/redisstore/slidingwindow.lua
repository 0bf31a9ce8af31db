-- Sliding window counter, mirroring core/internal/algo/slidingwindow.go.
--
-- State: one string key holding the current bucket's start (Unix ms, a
-- multiple of window), the units of the bucket before it (prev) and of the
-- current one (curr), in one of two forms (see docs/redis.md, Keys and
-- memory):
--
--   compact  prev × 2^26 + curr, a plain integer (exact: below 2^52), and
--            the bucket in the key's expiry: the key expires at
--            start + 2 × window + ttl_slack, in Unix ms on Redis's clock
--            (SET ... PXAT). A key with prev 0 and curr below 10,000 is an
--            integer whose object Redis shares: its value costs no memory.
--   full     the bucket's index (start = index × window), prev and curr,
--            packed with cmsgpack, with a TTL of 2 × window + ttl_slack
--            from the write (SET ... PX).
--
-- A write uses the compact form when the window is a second or more, both
-- counts are below 2^26 and the caller's clock is at most ttl_slack / 2
-- behind Redis's (always with server time); the full form otherwise. A charge in the bucket a compact
-- key already holds is an INCRBY of the cost, which keeps the expiry.
--
-- Two blocks that go generate pastes into the drivers (see
-- docs/redis-scripts.md). Go's integer division truncates toward zero;
-- floor agrees wherever the quotient cannot be negative, and the one that
-- can is truncated by hand.

-- @eval: SlidingWindowState.Eval. a, b, c = start, prev, curr; d = the
-- key holds them in compact form (a charge may INCRBY it).
local start, prev, curr, compact = 0, 0, 0, false
local e = redis.call('PEXPIRETIME', key) -- -2: no key, -1: no expiry
if e > 0 then
  -- Anything but the two forms reads as no state: it starts over. The
  -- compact form is digits only: tonumber alone would also take a full
  -- form's bytes such as "9\0\1" (it stops at a NUL, skips white space).
  local v = redis.call('GET', key)
  local n = string.find(v, '^%d+$') and tonumber(v)
  if n then
    -- The bucket's start, give or take a shift of up to a quarter window
    -- (see fixedwindow.lua).
    e = e - ttl_slack - 2 * window
    local off = (e + window / 2) % window - window / 2
    if 4 * off <= window and -4 * off <= window and n >= 0 and n % 1 == 0 and n < 4503599627370496 then
      curr = n % 67108864 -- 2^26
      start, prev, compact = e - off, (n - curr) / 67108864, true
    end
  else
    local ok, index, p, q, extra = pcall(cmsgpack.unpack, v)
    if ok and type(index) == 'number' and type(p) == 'number' and type(q) == 'number' and extra == nil then
      start, prev, curr = index * window, p, q
    end
  end
end
-- advance
local s = now - now % window -- windowStart (Lua's % is never negative here)
if now < start - window then
  -- The clock stepped back more than a window: both buckets move back to
  -- the one holding now, counts kept (even on a denial).
  start, compact = s, false
  local ws, wp, wc = start, prev, curr
  -- @sliding keyform.lua
elseif s > start then
  compact = false
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
a, b, c, d = start, prev, curr, compact

-- @charge: SlidingWindowState.Charge, then the state is stored.
local curr = c + cost
if d and curr < 67108864 then
  redis.call('INCRBY', key, string.format('%d', cost))
else
  local ws, wp, wc = a, b, curr
  -- @sliding keyform.lua
end
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
