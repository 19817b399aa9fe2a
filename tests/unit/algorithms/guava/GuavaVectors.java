// Generates tests/unit/algorithms/guava_smooth_vectors.inc from the real Guava RateLimiter.
// It lives in Guava's package to reach the package-private stopwatch hooks. Run:
//   javac -cp /usr/share/java/guava.jar -d /tmp/gv GuavaVectors.java
//   java -cp /usr/share/java/guava.jar:/tmp/gv com.google.common.util.concurrent.GuavaVectors
// and put its output under the .inc file's header comment. Not built by CMake.
package com.google.common.util.concurrent;

import java.util.Random;
import java.util.concurrent.TimeUnit;

public class GuavaVectors {
  static class Fake extends RateLimiter.SleepingStopwatch {
    long instant = 0;
    @Override protected long readMicros() { return instant; }
    @Override protected void sleepMicrosUninterruptibly(long micros) { instant += micros; }
  }

  // One scenario: a random stream of (sleep, permits, timeout) applied to one limiter.
  // Each line: sleep_us permits timeout_ms(-1 none) -> granted wait_us
  static void scenario(String name, double pps, double maxBurst, long warmupMs, double cold, long seed, int n, int maxSleep) {
    Fake sw = new Fake();
    RateLimiter rl = warmupMs == 0
        ? new SmoothRateLimiter.SmoothBursty(sw, maxBurst)
        : new SmoothRateLimiter.SmoothWarmingUp(sw, warmupMs, TimeUnit.MILLISECONDS, cold);
    rl.setRate(pps);
    Random r = new Random(seed);
    System.out.printf("// %s: pps=%s maxburst=%s warmup_ms=%d cold=%s%n", name, pps, maxBurst, warmupMs, cold);
    System.out.printf("{\"%s\", %s, %s, %d, %s, {%n", name, Double.toString(pps), Double.toString(maxBurst), warmupMs, Double.toString(cold));
    for (int i = 0; i < n; i++) {
      long sleep = r.nextInt(4) == 0 ? 0 : (long) r.nextInt(maxSleep);
      int permits = 1 + (r.nextInt(5) == 0 ? r.nextInt(20) : 0);
      long timeoutMs = r.nextInt(3) == 0 ? (long) r.nextInt(2000) : -1;
      sw.instant += sleep;
      long before = sw.instant;
      boolean granted;
      long wait;
      if (timeoutMs >= 0) {
        long nf = rl.queryEarliestAvailable(before);
        granted = rl.tryAcquire(permits, timeoutMs, TimeUnit.MILLISECONDS);
        wait = granted ? sw.instant - before : Math.max(nf - before, 0);
      } else {
        wait = rl.reserve(permits);
        granted = true;
      }
      // The caller waits as told (as Guava's acquire does); time moves on.
      sw.instant = before + (granted ? wait : 0);
      System.out.printf("  {%d, %d, %d, %s, %d},%n", sleep, permits, timeoutMs, granted ? "true" : "false", wait);
    }
    System.out.println("}},");
  }

  public static void main(String[] args) {
    scenario("bursty_5qps", 5.0, 1.0, 0, 3.0, 1, 50, 3000000);
    scenario("bursty_0.7qps_burst3", 0.7, 3.0, 0, 3.0, 2, 50, 3000000);
    scenario("bursty_333qps_busy", 333.0, 1.0, 0, 3.0, 3, 50, 20000);
    scenario("bursty_7qps_burst2.5_busy", 7.0, 2.5, 0, 3.0, 7, 50, 300000);
    scenario("warm_2qps_4s", 2.0, 1.0, 4000, 3.0, 4, 50, 3000000);
    scenario("warm_5qps_4s_cold10", 5.0, 1.0, 4000, 10.0, 5, 50, 3000000);
    scenario("warm_3.3qps_1500ms_cold1", 3.3, 1.0, 1500, 1.0, 6, 50, 1000000);
    scenario("warm_10qps_2500ms_cold4.5_busy", 10.0, 1.0, 2500, 4.5, 8, 50, 300000);
  }
}
