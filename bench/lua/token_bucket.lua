-- Token bucket over GET/SETEX, as limiter libraries write it (the baseline for RL.TOKENBUCKET).
-- KEYS[1] = bucket; ARGV = capacity, tokens, period_ms[, cost]. The bucket starts full and
-- refills `tokens` per `period_ms`; state "level:last_ms" in one string, kept until full.
-- Reply: {allowed, limit, remaining, retry_after_ms, reset_after_ms}.
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2]) / tonumber(ARGV[3])  -- tokens per ms
local cost = tonumber(ARGV[4] or 1)
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local level = capacity
local raw = redis.call('GET', KEYS[1])
if raw then
  local sep = string.find(raw, ':', 1, true)
  local last = tonumber(string.sub(raw, sep + 1))
  level = math.min(capacity, tonumber(string.sub(raw, 1, sep - 1)) + (now - last) * rate)
end
if level >= cost then
  level = level - cost
  local ttl_s = math.max(1, math.ceil((capacity - level) / rate / 1000))
  redis.call('SETEX', KEYS[1], ttl_s, string.format('%.3f:%d', level, now))
  return {1, capacity, math.floor(level), -1, math.ceil((capacity - level) / rate)}
end
return {0, capacity, math.floor(level), math.ceil((cost - level) / rate),
        math.ceil((capacity - level) / rate)}
