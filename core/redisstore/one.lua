-- The driver for a limiter with one policy, the common case: evaluate the
-- policy and, if it allows and this is a Take, charge it. It mirrors the
-- single-policy path of core/memory's Store.
--
-- KEYS[1]  the policy's state key
-- ARGV[1]  MessagePack, one value after another: now (Unix µs), cost,
--          charge (true = Take, false = Peek), server time (true = use
--          Redis TIME instead of now), algorithm ('f', 's' or 'l'), limit,
--          window (ms)
--
-- It returns, packed with cmsgpack: allowed (1 or 0), remaining, reset
-- after (ms), retry after (ms).
--
-- The algorithms are not functions: go generate (internal/scriptgen)
-- pastes each file's blocks where a "-- @eval FILE" or "-- @charge FILE"
-- line stands, inside do ... end, and writes the result to scripts/. The
-- variables a block reads and sets are listed in docs/redis-scripts.md.
-- (A local function in a script is made anew on every call; the functions
-- and their calls cost Redis more than the arithmetic. For the same reason
-- the common path calls no math function: max is an if, and x - x % 1 is
-- floor(x).)
--
-- All times are integer Unix milliseconds held in Lua numbers (doubles);
-- now is rounded down, up rounded up;
-- Policy.Validate keeps every product below 2^53, so the arithmetic is
-- exact. Numbers handed to redis.call go through string.format('%d'):
-- Lua's own conversion keeps only 14 digits.

local now, cost, charge, server, alg, limit, window = cmsgpack.unpack(ARGV[1])
if server then
  -- @now servertime.lua
end
local up
-- @millis servertime.lua
-- ttl_slack (ms) is added to every key's expiry, so a key never vanishes
-- while its state still matters, even with some clock skew between the
-- callers and Redis. redis_ms is Redis's clock in Unix ms, read (TIME) by
-- the first block that needs it: a key's compact form (see
-- fixedwindow.lua) is written only when now is at most ttl_slack / 2
-- behind it.
local ttl_slack = 1000
local redis_ms
if server then
  redis_ms = now
end

local key = KEYS[1]
local a, b, c, d, allowed, remaining, reset, retry
if alg == 's' then
  -- @eval slidingwindow.lua
  if allowed and charge then
    -- @charge slidingwindow.lua
  end
elseif alg == 'f' then
  -- @eval fixedwindow.lua
  if allowed and charge then
    -- @charge fixedwindow.lua
  end
elseif alg == 'l' then
  -- @eval slidinglog.lua
  if allowed and charge then
    -- @charge slidinglog.lua
  end
else
  return redis.error_reply('ratewindow: unknown algorithm ' .. tostring(alg))
end
return cmsgpack.pack(allowed and 1 or 0, remaining, reset, retry)
