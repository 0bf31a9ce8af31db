-- Fixed window, mirroring core/fixedwindow.go line for line.
--
-- State: one string key holding "index count" in base 36: the window's
-- index (its start is index × window, in Unix ms) and the units charged in
-- it.

local function fixed_load(key, window)
  local v = redis.call('GET', key)
  if not v then
    return {start = 0, count = 0}
  end
  local a, b = string.match(v, '^(%-?%w+) (%w+)$')
  local index, count = dec(a or ''), dec(b or '')
  if not (index and count) then
    return {start = 0, count = 0}
  end
  return {start = index * window, count = count}
end

local function fixed_report(s, now, limit, window)
  local remaining, reset = math.max(0, limit - s.count), 0
  if s.count > 0 then
    reset = s.start + window - now
  end
  return remaining, reset
end

-- fixed_eval loads the state, moves it to the window holding now and reports
-- whether cost more units fit. It writes nothing.
local function fixed_eval(key, now, limit, window, cost)
  local s = fixed_load(key, window)
  local start = window_start(now, window)
  if start > s.start then
    s = {start = start, count = 0}
  end
  now = math.max(now, s.start)
  local remaining, reset = fixed_report(s, now, limit, window)
  local allowed, retry = s.count + cost <= limit, 0
  if not allowed then
    retry = s.start + window - now
  end
  return s, allowed, remaining, reset, retry
end

-- fixed_charge adds cost to the state fixed_eval returned and stores it.
local function fixed_charge(key, s, now, limit, window, cost)
  s.count = s.count + cost
  redis.call('SET', key, enc(s.start / window) .. ' ' .. enc(s.count), 'PX', int(window + ttl_slack))
  return fixed_report(s, math.max(now, s.start), limit, window)
end
