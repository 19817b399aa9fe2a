-- Moving window over a list, as the python `limits` library (Flask-Limiter, slowapi) keeps
-- one: the times of the granted requests, newest first, at most `limit` of them; a request is
-- granted while the limit-th newest is outside the window. A script-only row: its native
-- equivalent is the sliding log's. KEYS[1] = list; ARGV = limit, window_ms.
-- Reply: 1 granted, 0 refused.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local entry = redis.call('LINDEX', KEYS[1], limit - 1)
if entry and tonumber(entry) > now - window then
  return 0
end
redis.call('LPUSH', KEYS[1], now)
redis.call('LTRIM', KEYS[1], 0, limit - 1)
redis.call('PEXPIRE', KEYS[1], window)
return 1
