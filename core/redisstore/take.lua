-- The driver: one call evaluates every policy of one limiter key and, only
-- if all of them allow, charges cost to each (all or nothing). It mirrors
-- the do method of core/memory's Store.
--
-- KEYS[i]  the state key of policy i (all share one hash tag)
-- ARGV     now (Unix ms), cost, charge (1 = Take, 0 = Peek),
--          server time (1 = use Redis TIME instead of now),
--          then per policy: algorithm (f, s or l), limit, window (ms)
--
-- It returns four integers per policy: allowed (1 or 0), remaining,
-- reset after (ms), retry after (ms).

local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local charge = ARGV[3] == '1'
if ARGV[4] == '1' then
  -- Redis 3.2 to 6 need this before writing after TIME; newer servers
  -- always replicate effects.
  if redis.replicate_commands then
    redis.replicate_commands()
  end
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local n = #KEYS
-- states holds each policy's algorithm state as three numbers, out the
-- reply: two flat tables, whatever the number of policies, sized for one
-- policy up front (growing a table is a rehash).
local states, out = {nil, nil, nil}, {nil, nil, nil, nil}
local all = true
for i = 1, n do
  local code, limit, window = ARGV[3 * i + 2], tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local a, b, c, allowed, remaining, reset, retry
  if code == 's' then
    a, b, c, allowed, remaining, reset, retry = sliding_eval(KEYS[i], now, limit, window, cost)
  elseif code == 'f' then
    a, b, c, allowed, remaining, reset, retry = fixed_eval(KEYS[i], now, limit, window, cost)
  elseif code == 'l' then
    a, b, c, allowed, remaining, reset, retry = log_eval(KEYS[i], now, limit, window, cost)
  else
    return redis.error_reply('ratewindow: unknown algorithm ' .. tostring(code))
  end
  local o = 3 * i
  states[o - 2], states[o - 1], states[o] = a, b, c
  o = 4 * i
  out[o - 3], out[o - 2], out[o - 1], out[o] = allowed and 1 or 0, remaining, reset, retry
  all = all and allowed
end

if all and charge then
  for i = 1, n do
    local code, limit, window = ARGV[3 * i + 2], tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
    local o = 3 * i
    local a, b, c = states[o - 2], states[o - 1], states[o]
    local remaining, reset
    if code == 's' then
      remaining, reset = sliding_charge(KEYS[i], a, b, c, now, limit, window, cost)
    elseif code == 'f' then
      remaining, reset = fixed_charge(KEYS[i], a, b, c, now, limit, window, cost)
    else
      remaining, reset = log_charge(KEYS[i], a, b, c, now, limit, window, cost)
    end
    o = 4 * i
    out[o - 3], out[o - 2], out[o - 1], out[o] = 1, remaining, reset, 0
  end
end
return out
