-- Sliding window counter, mirroring core/slidingwindow.go line for line.
--
-- State: one string key holding "index prev curr" in base 36: the current
-- bucket's index (its start is index × window, in Unix ms), the units of the
-- bucket before it and of the current one.

local function sliding_load(key, window)
  local v = redis.call('GET', key)
  if not v then
    return {start = 0, prev = 0, curr = 0}
  end
  local a, b, c = string.match(v, '^(%-?%w+) (%w+) (%w+)$')
  local index, prev, curr = dec(a or ''), dec(b or ''), dec(c or '')
  if not (index and prev and curr) then
    return {start = 0, prev = 0, curr = 0}
  end
  return {start = index * window, prev = prev, curr = curr}
end

local function sliding_advance(s, now, window)
  local start = window_start(now, window)
  if start <= s.start then
    return s
  elseif start == s.start + window then
    return {start = start, prev = s.curr, curr = 0}
  end
  return {start = start, prev = 0, curr = 0}
end

-- sliding_weighted is the estimate multiplied by window.
local function sliding_weighted(s, now, window)
  return s.prev * (window - (now - s.start)) + s.curr * window
end

local function sliding_report(s, now, limit, window)
  local remaining = math.max(0, idiv(limit * window - sliding_weighted(s, now, window), window))
  local elapsed, reset = now - s.start, 0
  if s.curr > 0 then
    reset = 2 * window - elapsed
  elseif s.prev > 0 then
    reset = window - elapsed
  end
  return remaining, reset
end

-- sliding_retry is the shortest wait after which a lone request of cost is
-- allowed. Precondition: it is denied now.
local function sliding_retry(s, now, limit, window, cost)
  local elapsed = now - s.start
  local room = (limit - s.curr - cost) * window
  if room >= 0 and s.prev > 0 then
    -- Still in this bucket: need prev·(W − elapsed − d) ≤ room.
    return math.max(0, window - elapsed - idiv(room, s.prev))
  end
  -- Next bucket, where prev becomes curr: need curr·(W − e) ≤ (L − c)·W.
  if s.curr == 0 then
    return window - elapsed
  end
  local e = window - idiv((limit - cost) * window, s.curr)
  return window - elapsed + math.max(0, e)
end

-- sliding_eval loads the state, moves it to the bucket holding now and
-- reports whether cost more units fit. It writes nothing.
local function sliding_eval(key, now, limit, window, cost)
  local s = sliding_advance(sliding_load(key, window), now, window)
  now = math.max(now, s.start)
  local remaining, reset = sliding_report(s, now, limit, window)
  local weighted = sliding_weighted(s, now, window)
  local allowed, retry = weighted + cost * window <= limit * window, 0
  if not allowed then
    retry = sliding_retry(s, now, limit, window, cost)
  end
  return s, allowed, remaining, reset, retry
end

-- sliding_charge adds cost to the state sliding_eval returned and stores it.
local function sliding_charge(key, s, now, limit, window, cost)
  s.curr = s.curr + cost
  redis.call('SET', key, enc(s.start / window) .. ' ' .. enc(s.prev) .. ' ' .. enc(s.curr),
    'PX', int(2 * window + ttl_slack))
  return sliding_report(s, math.max(now, s.start), limit, window)
end
