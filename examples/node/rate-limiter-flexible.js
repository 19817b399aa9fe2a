// An Express app whose routes are limited per client by rate-limiter-flexible's
// RateLimiterRedis, with sluice as the Redis: the library runs its own Lua script
// (SET NX + INCRBY + PTTL) through EVAL/EVALSHA, unchanged.
//
//   SLUICE_PORT=6379 PORT=3000 node rate-limiter-flexible.js
//   curl -i http://127.0.0.1:3000/        # the 6th request within 10 s gets 429
"use strict";

const express = require("express");
const Redis = require("ioredis");
const { RateLimiterRedis } = require("rate-limiter-flexible");

// `points` requests per `duration` seconds for each client (its X-Api-Key, or its address).
function createApp(redis, { points = 5, duration = 10 } = {}) {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    keyPrefix: "flexible",
    points,
    duration,
  });
  const app = express();
  app.use(async (req, res, next) => {
    try {
      const result = await limiter.consume(req.get("X-Api-Key") || req.ip);
      res.set("X-RateLimit-Remaining", String(result.remainingPoints));
      next();
    } catch (rejection) {
      // An Error means the store failed (sluice unreachable): fail loudly, not open.
      if (rejection instanceof Error) return next(rejection);
      res.set("Retry-After", String(Math.ceil(rejection.msBeforeNext / 1000)));
      res.status(429).send("Too Many Requests\n");
    }
  });
  app.get("/", (req, res) => res.send("hello\n"));
  return app;
}

if (require.main === module) {
  const redis = new Redis({
    host: process.env.SLUICE_HOST || "127.0.0.1",
    port: Number(process.env.SLUICE_PORT || 6379),
  });
  const port = Number(process.env.PORT || 3000);
  createApp(redis).listen(port, () => console.log(`listening on http://127.0.0.1:${port}/`));
}

module.exports = { createApp };
