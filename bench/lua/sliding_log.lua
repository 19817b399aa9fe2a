-- Sliding log over a sorted set (the baseline for RL.SLIDINGLOG): one member per granted
-- request, scored by its time. KEYS[1] = log; ARGV = limit, window_ms.
-- Reply: {allowed, limit, remaining, retry_after_ms, reset_after_ms}.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, t[1] .. '.' .. t[2])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, limit, limit - count - 1, -1, window}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local retry = tonumber(oldest[2]) + window - now
return {0, limit, 0, retry, window}
