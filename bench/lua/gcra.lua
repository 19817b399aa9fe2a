-- GCRA on the server's TIME, as redis-cell's CL.THROTTLE computes it (the baseline for
-- CL.THROTTLE). KEYS[1] = key; ARGV = max_burst, count, period_s[, quantity]. State: the
-- theoretical arrival time (TAT) in microseconds, kept until it passes.
-- Reply (redis-cell's): {limited, limit, remaining, retry_after_s, reset_after_s}.
local burst = tonumber(ARGV[1])
local emission = tonumber(ARGV[3]) * 1000000 / tonumber(ARGV[2])  -- us per unit
local quantity = tonumber(ARGV[4] or 1)
local t = redis.call('TIME')
local now = t[1] * 1000000 + t[2]
local tolerance = emission * (burst + 1)
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + emission * quantity
local diff = now - (new_tat - tolerance)
if diff < 0 then
  return {1, burst + 1, 0, math.ceil(-diff / 1000000), math.ceil((tat - now) / 1000000)}
end
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX',
           math.max(1, math.ceil((new_tat - now) / 1000)))
return {0, burst + 1, math.floor(diff / emission), -1, math.ceil((new_tat - now) / 1000000)}
