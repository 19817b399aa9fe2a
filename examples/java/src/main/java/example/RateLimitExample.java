package example;

import java.util.Collections;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RateIntervalUnit;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's RRateLimiter with sluice as the Redis server: Redisson runs its own Lua scripts
 * (hashes, sorted sets, struct) unchanged, and sluice keeps the limiter's state durably.
 * Then the same kind of limit with sluice's native RL.TAKE, reached through EVAL because
 * Redisson has no raw-command API.
 *
 * <p>Usage: mvn -q compile exec:java -Dexec.args="127.0.0.1 6379"
 */
public final class RateLimitExample {
  public static void main(String[] args) {
    String host = args.length > 0 ? args[0] : "127.0.0.1";
    String port = args.length > 1 ? args[1] : "6379";
    Config config = new Config();
    config.useSingleServer().setAddress("redis://" + host + ":" + port);
    RedissonClient redisson = Redisson.create(config);
    try {
      // 5 permits per 10 seconds, shared by every process using this limiter's name.
      // trySetRate keeps an existing configuration (another process may have set it).
      RRateLimiter limiter = redisson.getRateLimiter("example:redisson");
      limiter.trySetRate(RateType.OVERALL, 5, 10, RateIntervalUnit.SECONDS);
      for (int i = 1; i <= 7; i++) {
        System.out.printf("redisson request %d: %s%n", i,
            limiter.tryAcquire() ? "allowed" : "refused");
      }

      // The native way: a policy defined once, then RL.TAKE per request. The reply is
      // [allowed, limit, remaining, retry_after_ms, reset_after_ms].
      RScript script = redisson.getScript(StringCodec.INSTANCE);
      script.eval(RScript.Mode.READ_WRITE,
          "return redis.call('RL.POLICY', 'SET', 'java-api', 'TOKENBUCKET', 5, 5, 10000)",
          RScript.ReturnType.STATUS);
      for (int i = 1; i <= 7; i++) {
        List<Long> reply = script.eval("user:42", RScript.Mode.READ_WRITE,
            "return redis.call('RL.TAKE', KEYS[1], ARGV[1])", RScript.ReturnType.MULTI,
            Collections.<Object>singletonList("user:42"), "java-api");
        System.out.printf("RL.TAKE request %d: allowed=%d remaining=%d retry_after_ms=%d%n",
            i, reply.get(0), reply.get(2), reply.get(3));
      }
    } finally {
      redisson.shutdown();
    }
  }
}
