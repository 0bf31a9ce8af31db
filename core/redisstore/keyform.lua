-- Which form a fixed-window or sliding-counter key is written in (see
-- docs/redis.md, "Keys and memory"): compact (a plain integer, the window
-- in the key's absolute expiry) or full (MessagePack, a relative TTL).
--
-- A block that go generate pastes into the algorithms' blocks (see
-- docs/redis-scripts.md).

-- @full: full becomes true when now is more than ttl_slack / 2 behind
-- Redis's clock: a compact key written with that now could expire before
-- its window ends. Reads TIME at most once per call (redis_ms); a full that
-- is already true is left as it is.
if not full then
  if not redis_ms then
    local t = redis.call('TIME')
    redis_ms = t[1] * 1000 + t[2] / 1000
  end
  full = now + ttl_slack / 2 < redis_ms
end
