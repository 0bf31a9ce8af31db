-- The driver for several requests in one call, each deciding as many.lua
-- would have alone: the requests run one after another, in order, so the
-- call decides exactly what the same requests sent one at a time would
-- have. The store sends it on a standalone Redis when concurrent calls
-- queue behind one in flight.
--
-- KEYS     every request's state keys, one request after another (request
--          r has as many as it has policies)
-- ARGV[r]  request r's argument, as many.lua takes its ARGV[1]
--
-- It returns, packed with cmsgpack, one result per request, in order:
-- its four integers per policy as many.lua returns them or, when it
-- failed (a key holding a value of another type), one string, the error.
-- A failure ends only its own request, at the point where many.lua would
-- have stopped: the others are decided all the same.
--
-- decide is the one function here: made once per call, not per request,
-- so that pcall can catch one request's error.

local out, m = {}, 0
-- server_now: Redis TIME in µs with server time; redis_ms: Redis's clock
-- in ms (see one.lua). Each is read once per call, for all its requests.
local server_now, redis_ms

-- decide decides the request whose argument is arg and whose keys start
-- after KEYS[k], writes its results to out after out[m] and returns the
-- new end of out.
local function decide(arg, k)
  local now, cost, charge = arg[1], arg[2], arg[3]
  if arg[4] then
    if not server_now then
      -- @now servertime.lua
      server_now = now
    end
    now = server_now
  end
  local up
  -- @millis servertime.lua
  local ttl_slack = 1000
  if arg[4] then
    redis_ms = now
  end

  local n = (#arg - 4) / 3
  local states = {}
  local all = true
  for i = 1, n do
    local key, alg, limit, window = KEYS[k + i], arg[3 * i + 2], arg[3 * i + 3], arg[3 * i + 4]
    local a, b, c, d, allowed, remaining, reset, retry
    if alg == 's' then
      -- @eval slidingwindow.lua
    elseif alg == 'f' then
      -- @eval fixedwindow.lua
    elseif alg == 'l' then
      -- @eval slidinglog.lua
    else
      error('ratewindow: unknown algorithm ' .. tostring(alg))
    end
    local o = 4 * i
    states[o - 3], states[o - 2], states[o - 1], states[o] = a, b, c, d
    o = m + 4 * i
    out[o - 3], out[o - 2], out[o - 1], out[o] = allowed and 1 or 0, remaining, reset, retry
    all = all and allowed
  end

  if all and charge then
    for i = 1, n do
      local key, alg, limit, window = KEYS[k + i], arg[3 * i + 2], arg[3 * i + 3], arg[3 * i + 4]
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
      o = m + 4 * i
      out[o - 3], out[o - 2], out[o - 1], out[o] = 1, remaining, reset, 0
    end
  end
  return m + 4 * n
end

local k = 0
for r = 1, #ARGV do
  local arg = {cmsgpack.unpack(ARGV[r])}
  local ok, res = pcall(decide, arg, k)
  if ok then
    m = res
  else
    -- redis.call raises a table {err = message}; error() a string.
    if type(res) == 'table' then
      res = res.err
    end
    m = m + 1
    out[m] = tostring(res)
  end
  k = k + (#arg - 4) / 3
end
return cmsgpack.pack(unpack(out, 1, m))
