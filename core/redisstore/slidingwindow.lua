-- Sliding window counter, mirroring core/slidingwindow.go line for line.
--
-- State: one string key holding three integers packed with cmsgpack: the
-- current bucket's index (its start is index × window, in Unix ms), the
-- units of the bucket before it and of the current one.

local function sliding_advance(start, prev, curr, now, window)
  local s = window_start(now, window)
  if s <= start then
    return start, prev, curr
  elseif s == start + window then
    return s, curr, 0
  end
  return s, 0, 0
end

-- sliding_weighted is the estimate multiplied by window.
local function sliding_weighted(start, prev, curr, now, window)
  return prev * (window - (now - start)) + curr * window
end

local function sliding_report(start, prev, curr, now, limit, window)
  local remaining = math.max(0, idiv(limit * window - sliding_weighted(start, prev, curr, now, window), window))
  local elapsed, reset = now - start, 0
  if curr > 0 then
    reset = 2 * window - elapsed
  elseif prev > 0 then
    reset = window - elapsed
  end
  return remaining, reset
end

-- sliding_retry is the shortest wait after which a lone request of cost is
-- allowed. Precondition: it is denied now.
local function sliding_retry(start, prev, curr, now, limit, window, cost)
  local elapsed = now - start
  local room = (limit - curr - cost) * window
  if room >= 0 and prev > 0 then
    -- Still in this bucket: need prev·(W − elapsed − d) ≤ room.
    return math.max(0, window - elapsed - idiv(room, prev))
  end
  -- Next bucket, where prev becomes curr: need curr·(W − e) ≤ (L − c)·W.
  if curr == 0 then
    return window - elapsed
  end
  local e = window - idiv((limit - cost) * window, curr)
  return window - elapsed + math.max(0, e)
end

-- sliding_eval loads the state, moves it to the bucket holding now and
-- reports whether cost more units fit. It writes nothing. It returns the
-- state (start, prev, curr) and the policy's state.
local function sliding_eval(key, now, limit, window, cost)
  local start, prev, curr = 0, 0, 0
  local v = redis.call('GET', key)
  if v then
    local index, p, c = unpack_state(v, 3)
    if index then
      start, prev, curr = index * window, p, c
    end
  end
  start, prev, curr = sliding_advance(start, prev, curr, now, window)
  now = math.max(now, start)
  local remaining, reset = sliding_report(start, prev, curr, now, limit, window)
  local weighted = sliding_weighted(start, prev, curr, now, window)
  local allowed, retry = weighted + cost * window <= limit * window, 0
  if not allowed then
    retry = sliding_retry(start, prev, curr, now, limit, window, cost)
  end
  return start, prev, curr, allowed, remaining, reset, retry
end

-- sliding_charge adds cost to the state sliding_eval returned and stores it.
local function sliding_charge(key, start, prev, curr, now, limit, window, cost)
  curr = curr + cost
  redis.call('SET', key, cmsgpack.pack(start / window, prev, curr), 'PX', int(2 * window + ttl_slack))
  return sliding_report(start, prev, curr, math.max(now, start), limit, window)
end
