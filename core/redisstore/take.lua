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

local algorithms = {
  f = {eval = fixed_eval, charge = fixed_charge},
  s = {eval = sliding_eval, charge = sliding_charge},
  l = {eval = log_eval, charge = log_charge},
}

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
local algs, limits, windows, states = {}, {}, {}, {}
local out = {}
local all = true
for i = 1, n do
  local alg = algorithms[ARGV[3 * i + 2]]
  if not alg then
    return redis.error_reply('ratewindow: unknown algorithm ' .. tostring(ARGV[3 * i + 2]))
  end
  local limit, window = tonumber(ARGV[3 * i + 3]), tonumber(ARGV[3 * i + 4])
  local s, allowed, remaining, reset, retry = alg.eval(KEYS[i], now, limit, window, cost)
  algs[i], limits[i], windows[i], states[i] = alg, limit, window, s
  local o = 4 * (i - 1)
  out[o + 1], out[o + 2], out[o + 3], out[o + 4] = allowed and 1 or 0, remaining, reset, retry
  all = all and allowed
end

if all and charge then
  for i = 1, n do
    local remaining, reset = algs[i].charge(KEYS[i], states[i], now, limits[i], windows[i], cost)
    local o = 4 * (i - 1)
    out[o + 1], out[o + 2], out[o + 3], out[o + 4] = 1, remaining, reset, 0
  end
end
return out
