-- The driver for a limiter with several policies: evaluate every policy of
-- one limiter key and, only if all of them allow, charge cost to each (all
-- or nothing). It mirrors the do method of core/memory's Store.
--
-- KEYS[i]  the state key of policy i (all share one hash tag)
-- ARGV[1]  MessagePack, one value after another: now (Unix µs), cost,
--          charge (true = Take, false = Peek), server time (true = use
--          Redis TIME instead of now), then per policy: algorithm ('f',
--          's' or 'l'), limit, window (ms)
--
-- It returns, packed with cmsgpack, four integers per policy: allowed (1
-- or 0), remaining, reset after (ms), retry after (ms).
--
-- The algorithms' blocks are pasted in as in one.lua; docs/redis-scripts.md
-- lists what they read and set.

local arg = {cmsgpack.unpack(ARGV[1])}
local now, cost, charge = arg[1], arg[2], arg[3]
if arg[4] then
  -- @now servertime.lua
end
local up
-- @millis servertime.lua
-- ttl_slack, redis_ms: see one.lua.
local ttl_slack = 1000
local redis_ms
if arg[4] then
  redis_ms = now
end

local n = #KEYS
-- states holds each policy's algorithm state as four values, out the
-- reply: two flat tables, whatever the number of policies.
local states, out = {}, {}
local all = true
for i = 1, n do
  local key, alg, limit, window = KEYS[i], arg[3 * i + 2], arg[3 * i + 3], arg[3 * i + 4]
  local a, b, c, d, allowed, remaining, reset, retry
  if alg == 's' then
    -- @eval slidingwindow.lua
  elseif alg == 'f' then
    -- @eval fixedwindow.lua
  elseif alg == 'l' then
    -- @eval slidinglog.lua
  else
    return redis.error_reply('ratewindow: unknown algorithm ' .. tostring(alg))
  end
  local o = 4 * i
  states[o - 3], states[o - 2], states[o - 1], states[o] = a, b, c, d
  o = 4 * i
  out[o - 3], out[o - 2], out[o - 1], out[o] = allowed and 1 or 0, remaining, reset, retry
  all = all and allowed
end

if all and charge then
  for i = 1, n do
    local key, alg, limit, window = KEYS[i], arg[3 * i + 2], arg[3 * i + 3], arg[3 * i + 4]
    local o = 4 * i
    local a, b, c, d = states[o - 3], states[o - 2], states[o - 1], states[o]
    local remaining, reset
    if alg == 's' then
      -- @charge slidingwindow.lua
    elseif alg == 'f' then
      -- @charge fixedwindow.lua
    else
      -- @charge slidinglog.lua
    end
    o = 4 * i
    out[o - 3], out[o - 2], out[o - 1], out[o] = 1, remaining, reset, 0
  end
end
return cmsgpack.pack(unpack(out))
