-- Shared helpers, mirroring core/timeutil.go. All times are integer Unix
-- milliseconds held in Lua numbers (doubles); Policy.Validate keeps every
-- product below 2^53, so the arithmetic is exact.

-- ttl_slack is added to every key's TTL (milliseconds), so a key never
-- vanishes while its state still matters, even with some clock skew between
-- the callers and Redis.
local ttl_slack = 1000

-- idiv is Go's integer division: the quotient truncated toward zero.
local function idiv(a, b)
  local q = a / b
  if q >= 0 then
    return math.floor(q)
  end
  return math.ceil(q)
end

-- window_start returns the start of the epoch-aligned window of length w
-- that holds now.
local function window_start(now, w)
  return now - ((now % w) + w) % w
end

-- int formats n as a decimal integer. Lua's own number-to-string conversion
-- keeps only 14 digits, so numbers handed to redis.call go through it.
local function int(n)
  return string.format('%d', n)
end

-- unpack_state reads a state value: n integers packed with cmsgpack (the
-- most compact encoding the script can write in one call). Anything else
-- (not MessagePack, or not n numbers) reads as nil: the state starts over.
local function unpack_state(v, n)
  local ok, a, b, c, extra = pcall(cmsgpack.unpack, v)
  if not ok or extra ~= nil or type(a) ~= 'number' or type(b) ~= 'number' then
    return nil
  end
  if n == 3 and type(c) ~= 'number' or n == 2 and c ~= nil then
    return nil
  end
  return a, b, c
end
