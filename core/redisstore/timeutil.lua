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
-- keeps only 14 digits, so every number handed to redis.call goes through it.
local function int(n)
  return string.format('%d', n)
end

-- State strings hold integers in base 36 ("1800000000" is "tsdhxc"): short
-- values fit Redis's smallest allocations, which is most of a key's memory.
local b36digits = '0123456789abcdefghijklmnopqrstuvwxyz'

-- enc writes the integer n in base 36.
local function enc(n)
  local sign, s = '', ''
  if n < 0 then
    sign, n = '-', -n
  end
  repeat
    local d = n % 36
    s = string.sub(b36digits, d + 1, d + 1) .. s
    n = (n - d) / 36
  until n == 0
  return sign .. s
end

-- dec reads what enc wrote; nil when s is not a base-36 integer.
local function dec(s)
  if string.sub(s, 1, 1) == '-' then
    local v = tonumber(string.sub(s, 2), 36)
    return v and -v
  end
  return tonumber(s, 36)
end
