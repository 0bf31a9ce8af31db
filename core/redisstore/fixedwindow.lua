-- Fixed window, mirroring core/fixedwindow.go.
--
-- State: one string key holding two integers packed with cmsgpack: the
-- window's index (its start is index × window, in Unix ms) and the units
-- charged in it.
--
-- Two blocks that go generate pastes into the drivers (see docs/redis-scripts.md).

-- @eval: FixedWindowState.Eval. a, b = the window's start and count.
local start, count = 0, 0
local v = redis.call('GET', key)
if v then
  -- Anything but two packed numbers reads as no state: it starts over.
  local ok, index, n, extra = pcall(cmsgpack.unpack, v)
  if ok and type(index) == 'number' and type(n) == 'number' and extra == nil then
    start, count = index * window, n
  end
end
local s = now - now % window -- windowStart (Lua's % is never negative here)
if s > start then
  start, count = s, 0
elseif now < start - window then
  -- The clock stepped back more than a window: the count moves to now's
  -- window (kept, even on a denial).
  start = s
  redis.call('SET', key, cmsgpack.pack(start / window, count), 'PX', string.format('%d', window + ttl_slack))
end
remaining, reset = limit - count, 0
if remaining < 0 then
  remaining = 0
end
if count > 0 then
  reset = start + window - now
end
allowed, retry = count + cost <= limit, 0
if not allowed then
  retry = start + window - now
end
a, b = start, count

-- @charge: FixedWindowState.Charge, then the state is stored.
local count = b + cost
redis.call('SET', key, cmsgpack.pack(a / window, count), 'PX', string.format('%d', window + ttl_slack))
remaining, reset = limit - count, a + window - now
if remaining < 0 then
  remaining = 0
end
