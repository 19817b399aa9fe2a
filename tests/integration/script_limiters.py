"""Rate-limiter scripts in the styles of existing libraries, written for these tests (none is
copied from a library): the shapes of their Redis calls are what matters.

    TOKEN_BUCKET    Spring Cloud Gateway style: tokens and last-refresh time in two keys, a
                    GET/SETEX pair each, `now` passed by the caller.
    FIXED_WINDOW    go-zero style: INCRBY, and EXPIRE on the window's first hit.
    GCRA            generic cell rate algorithm on the server's clock: redis.call('TIME').
    REDISSON        Redisson RRateLimiter style: settings in a hash (HSETNX), the free permits
                    in a string (DECRBY / INCRBY), every grant in a sorted set scored by time
                    whose members are struct.pack'ed (random id, permits), released with
                    ZRANGEBYSCORE / ZREMRANGEBYSCORE, and PTTL-driven PEXPIRE.
"""

TOKEN_BUCKET = """
local tokens_key = KEYS[1]
local stamp_key = KEYS[2]
local rate = tonumber(ARGV[1])        -- tokens per second
local capacity = tonumber(ARGV[2])
local now = tonumber(ARGV[3])         -- seconds, from the caller
local requested = tonumber(ARGV[4])

local ttl = math.floor(capacity / rate * 2)
local tokens = tonumber(redis.call('get', tokens_key))
if tokens == nil then tokens = capacity end
local stamp = tonumber(redis.call('get', stamp_key))
if stamp == nil then stamp = 0 end

local filled = math.min(capacity, tokens + math.max(0, now - stamp) * rate)
local allowed = filled >= requested
local left = filled
if allowed then left = filled - requested end
if ttl > 0 then
  redis.call('setex', tokens_key, ttl, left)
  redis.call('setex', stamp_key, ttl, now)
end
return { allowed and 1 or 0, left, tostring(left) }
"""

FIXED_WINDOW = """
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local current = redis.call('INCRBY', KEYS[1], 1)
if current == 1 then
  redis.call('EXPIRE', KEYS[1], window)
end
if current < limit then
  return 1      -- allowed
elseif current == limit then
  return 2      -- allowed, quota used up
end
return 0        -- over quota
"""

GCRA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst = tonumber(ARGV[1])
local interval = tonumber(ARGV[3]) / tonumber(ARGV[2])
local cost = tonumber(ARGV[4])
local tolerance = interval * (burst + 1)

local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval * cost
local allow_at = new_tat - tolerance
if now < allow_at then
  return {0, math.ceil(allow_at - now)}
end
redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil(new_tat - now))
return {1, 0}
"""

REDISSON = """
local settings, value, grants = KEYS[1], KEYS[2], KEYS[3]
local requested, now, id = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
redis.call('HSETNX', settings, 'rate', ARGV[4])
redis.call('HSETNX', settings, 'interval', ARGV[5])
local rate = tonumber(redis.call('HGET', settings, 'rate'))
local interval = tonumber(redis.call('HGET', settings, 'interval'))
assert(requested <= rate, 'Requested permits amount could not exceed defined rate')

local current = redis.call('GET', value)
if current == false then
  redis.call('SET', value, rate)
  current = rate
else
  local expired = redis.call('ZRANGEBYSCORE', grants, 0, now - interval)
  local released = 0
  for _, packed in ipairs(expired) do
    local len, random, permits = struct.unpack('Bc0I', packed)
    released = released + permits
  end
  if released > 0 then
    redis.call('ZREMRANGEBYSCORE', grants, 0, now - interval)
    current = redis.call('INCRBY', value, released)
  else
    current = tonumber(current)
  end
end

if current < requested then
  local oldest = redis.call('ZRANGE', grants, 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + interval - now}
end
redis.call('ZADD', grants, now, struct.pack('Bc0I', string.len(id), id, requested))
redis.call('DECRBY', value, requested)
local ttl = redis.call('PTTL', settings)
if ttl > 0 then
  redis.call('PEXPIRE', value, ttl)
  redis.call('PEXPIRE', grants, ttl)
end
return {1, current - requested}
"""


def composite_types_missing(client):
    """A skip reason while sluiced does not know HSET or ZADD yet, else None."""
    for command in (("HSET", "__probe_h", "f", "v"), ("ZADD", "__probe_z", "1", "m")):
        reply = client.call(*command)
        if isinstance(reply, str) and "unknown command" in reply:
            return f"{command[0]} is not implemented in sluiced yet (hashes / sorted sets)"
    client.call("DEL", "__probe_h", "__probe_z")
    return None
