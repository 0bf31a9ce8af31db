-- Fixed window, mirroring core/internal/algo/fixedwindow.go.
--
-- State: one string key, in one of two forms (see docs/redis.md, Keys and
-- memory):
--
--   compact  the count, a plain integer, and the window in the key's
--            expiry: the key expires at (index + 1) × window + ttl_slack,
--            in Unix ms on Redis's clock (SET ... PXAT). Redis shares the
--            objects of small integers, so the value costs no memory.
--   full     the window's index (its start is index × window) and the
--            count, packed with cmsgpack, with a TTL of window + ttl_slack
--            from the write (SET ... PX).
--
-- A write uses the compact form when the window is a second or more and
-- the caller's clock is at most ttl_slack / 2 behind Redis's (always with
-- server time), so the key outlives its window on the caller's clock; the
-- full form otherwise, so any clock keeps its counts. A compact key's
-- expiry may move by up to a quarter window (see the eval block) and still
-- name its window. A charge in the window a compact key already
-- holds is an INCRBY, which keeps the expiry.
--
-- Two blocks that go generate pastes into the drivers (see docs/redis-scripts.md).

-- @eval: FixedWindowState.Eval. a, b = the window's start and count; c =
-- the key holds a and b in compact form (a charge may INCRBY it).
local start, count, compact = 0, 0, false
local e = redis.call('PEXPIRETIME', key) -- -2: no key, -1: no expiry
if e > 0 then
  -- Anything but the two forms reads as no state: it starts over. The
  -- compact form is digits only: tonumber alone would also take a full
  -- form's bytes such as "9\0\1" (it stops at a NUL, skips white space).
  local v = redis.call('GET', key)
  local n = string.find(v, '^%d+$') and tonumber(v)
  if n then
    -- The window's start, give or take a shift: MIGRATE (a cluster
    -- reshard) and RESTORE carry a TTL, not an instant, so the expiry may
    -- move by the time in transit. off is the distance to the nearest
    -- window start, accepted up to a quarter window.
    e = e - ttl_slack - window
    local off = (e + window / 2) % window - window / 2
    if 4 * off <= window and -4 * off <= window and n >= 0 and n % 1 == 0 then
      start, count, compact = e - off, n, true
    end
  else
    local ok, index, n, extra = pcall(cmsgpack.unpack, v)
    if ok and type(index) == 'number' and type(n) == 'number' and extra == nil then
      start, count = index * window, n
    end
  end
end
local s = now - now % window -- windowStart (Lua's % is never negative here)
if s > start then
  start, count, compact = s, 0, false
elseif now < start - window then
  -- The clock stepped back more than a window: the count moves to now's
  -- window (kept, even on a denial).
  start, compact = s, false
  local ws, wc = start, count
  -- @fixed keyform.lua
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
a, b, c = start, count, compact

-- @charge: FixedWindowState.Charge, then the state is stored.
local count = b + cost
if c then
  redis.call('INCRBY', key, string.format('%d', cost))
else
  local ws, wc = a, count
  -- @fixed keyform.lua
end
remaining, reset = limit - count, a + window - now
if remaining < 0 then
  remaining = 0
end
