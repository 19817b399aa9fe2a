// An Express app limited by express-rate-limit with rate-limit-redis's RedisStore, with
// sluice as the Redis (through ioredis): the store loads its Lua scripts with SCRIPT LOAD and
// runs them with EVALSHA, unchanged.
//
//   SLUICE_PORT=6379 PORT=3001 node express-rate-limit.js
//   curl -i http://127.0.0.1:3001/        # the 4th request within a minute gets 429
"use strict";

const express = require("express");
const Redis = require("ioredis");
const { rateLimit } = require("express-rate-limit");
const { RedisStore } = require("rate-limit-redis");

// `limit` requests per `windowMs` for each client address.
function createApp(redis, { limit = 3, windowMs = 60_000 } = {}) {
  const app = express();
  app.use(
    rateLimit({
      windowMs,
      limit,
      standardHeaders: "draft-7", // RateLimit and RateLimit-Policy headers
      legacyHeaders: false,
      store: new RedisStore({
        sendCommand: (command, ...args) => redis.call(command, ...args),
        prefix: "express:",
      }),
    }),
  );
  app.get("/", (req, res) => res.send("hello\n"));
  return app;
}

if (require.main === module) {
  const redis = new Redis({
    host: process.env.SLUICE_HOST || "127.0.0.1",
    port: Number(process.env.SLUICE_PORT || 6379),
  });
  const port = Number(process.env.PORT || 3001);
  createApp(redis).listen(port, () => console.log(`listening on http://127.0.0.1:${port}/`));
}

module.exports = { createApp };
