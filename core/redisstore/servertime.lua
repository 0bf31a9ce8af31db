-- The one step both drivers share besides the algorithms: with
-- WithServerTime, the time comes from Redis TIME instead of the caller's
-- clock, so app servers with skewed clocks agree.
--
-- A block that go generate pastes into the drivers (see docs/redis-scripts.md).

-- @now: sets now (Unix microseconds) from Redis TIME.
-- Redis 3.2 to 6 need this before writing after TIME; newer servers
-- always replicate effects.
if redis.replicate_commands then
  redis.replicate_commands()
end
local t = redis.call('TIME')
now = tonumber(t[1]) * 1000000 + tonumber(t[2])
