-- The steps every driver takes with the time before the algorithms: by
-- default (unless WithClientTime), the time comes from Redis TIME instead
-- of the caller's clock, so app servers with skewed clocks agree; then it
-- is rounded to whole milliseconds.
--
-- Blocks that go generate pastes into the drivers (see docs/redis-scripts.md).

-- @now: sets now (Unix microseconds) from Redis TIME.
-- Redis 3.2 to 6 need this before writing after TIME; newer servers
-- always replicate effects.
if redis.replicate_commands then
  redis.replicate_commands()
end
local t = redis.call('TIME')
now = tonumber(t[1]) * 1000000 + tonumber(t[2])

-- @millis: now arrives in Unix microseconds; the algorithms count in whole
-- milliseconds. Sets now to it rounded down, and up (declared by the
-- driver) to it rounded up: the instant a sliding log records a request
-- at, so that it is exact in real time.
up = now % 1000
now = (now - up) / 1000
if up > 0 then
  up = now + 1
else
  up = now
end
