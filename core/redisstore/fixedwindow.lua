-- Fixed window, mirroring core/fixedwindow.go line for line.
--
-- State: one string key holding two integers packed with cmsgpack: the
-- window's index (its start is index × window, in Unix ms) and the units
-- charged in it.

local function fixed_report(start, count, now, limit, window)
  local remaining, reset = math.max(0, limit - count), 0
  if count > 0 then
    reset = start + window - now
  end
  return remaining, reset
end

-- fixed_eval loads the state, moves it to the window holding now and reports
-- whether cost more units fit. It writes nothing. It returns the state
-- (start, count, unused) and the policy's state.
local function fixed_eval(key, now, limit, window, cost)
  local start, count = 0, 0
  local v = redis.call('GET', key)
  if v then
    local index, n = unpack_state(v, 2)
    if index then
      start, count = index * window, n
    end
  end
  local s = window_start(now, window)
  if s > start then
    start, count = s, 0
  end
  now = math.max(now, start)
  local remaining, reset = fixed_report(start, count, now, limit, window)
  local allowed, retry = count + cost <= limit, 0
  if not allowed then
    retry = start + window - now
  end
  return start, count, 0, allowed, remaining, reset, retry
end

-- fixed_charge adds cost to the state fixed_eval returned and stores it.
local function fixed_charge(key, start, count, _, now, limit, window, cost)
  count = count + cost
  redis.call('SET', key, cmsgpack.pack(start / window, count), 'PX', int(window + ttl_slack))
  return fixed_report(start, count, math.max(now, start), limit, window)
end
