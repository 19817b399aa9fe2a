-- Fixed window over INCRBY + PEXPIRE (the baseline for RL.FIXEDWINDOW).
-- KEYS[1] = counter; ARGV = limit, window_ms[, cost].
-- Reply: {allowed, limit, remaining, retry_after_ms, reset_after_ms}.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cost = tonumber(ARGV[3] or 1)
local count = redis.call('INCRBY', KEYS[1], cost)
if count == cost then redis.call('PEXPIRE', KEYS[1], window) end
local ttl = redis.call('PTTL', KEYS[1])
if count > limit then return {0, limit, 0, ttl, ttl} end
return {1, limit, limit - count, -1, ttl}
