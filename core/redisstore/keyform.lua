-- How a fixed-window or sliding-counter state is written (see docs/redis.md,
-- "Keys and memory"): in the compact form (a plain integer, the window in
-- the key's absolute expiry) or the full form (MessagePack, a relative TTL).
--
-- Blocks that go generate pastes into the algorithms' blocks (see
-- docs/redis-scripts.md). Each writer reads locals its caller declares
-- (ws, the window's start, and the counts) and writes key.

-- @fixed: stores a fixed window: ws (its start) and wc (its count).
local full = window < 1000
-- @full keyform.lua
if full then
  local v = ws / window
  if v >= 0 and v < 128 then
    -- A window of months or more has a small index, which cmsgpack would
    -- write as one byte, maybe a digit: the value could then read as the
    -- compact form's integer. Written as a uint16, which unpacks alike.
    v = string.char(0xcd, 0, v) .. cmsgpack.pack(wc)
  else
    v = cmsgpack.pack(v, wc)
  end
  redis.call('SET', key, v, 'PX', string.format('%d', window + ttl_slack))
else
  redis.call('SET', key, string.format('%d', wc), 'PXAT', string.format('%d', ws + window + ttl_slack))
end

-- @sliding: stores a sliding counter: ws (its current bucket's start), wp
-- and wc (the previous and current buckets' counts). Counts of 2^26 or
-- more take the full form: the compact one packs both in wp × 2^26 + wc.
local full = window < 1000 or wp >= 67108864 or wc >= 67108864
-- @full keyform.lua
if full then
  local v = ws / window
  if v >= 0 and v < 128 then
    -- As in the fixed window's writer: never a first byte that is a digit.
    v = string.char(0xcd, 0, v) .. cmsgpack.pack(wp, wc)
  else
    v = cmsgpack.pack(v, wp, wc)
  end
  redis.call('SET', key, v, 'PX', string.format('%d', 2 * window + ttl_slack))
else
  redis.call('SET', key, string.format('%d', wp * 67108864 + wc), 'PXAT', string.format('%d', ws + 2 * window + ttl_slack))
end

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
