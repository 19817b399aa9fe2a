// go-redis with redis_rate (GCRA in a Lua script) against sluice, then the same limit with
// sluice's native RL.GCRA, which decides in one command without a script.
//
//	go mod tidy && go run . -addr 127.0.0.1:6379
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "sluiced host:port")
	flag.Parse()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: *addr})
	defer rdb.Close()

	// redis_rate: 5 requests per second with a burst of 5, per key.
	limiter := redis_rate.NewLimiter(rdb)
	for i := 1; i <= 7; i++ {
		res, err := limiter.Allow(ctx, "go:user:42", redis_rate.PerSecond(5))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("redis_rate request %d: allowed=%d remaining=%d retry_after=%v\n",
			i, res.Allowed, res.Remaining, res.RetryAfter)
	}

	// Native: RL.GCRA key max_burst count period_ms replies
	// [allowed, limit, remaining, retry_after_ms, reset_after_ms] (a map under RESP3, which
	// go-redis v9 speaks by default: read it with the field names).
	for i := 1; i <= 7; i++ {
		reply, err := rdb.Do(ctx, "RL.GCRA", "go:native:42", 4, 5, 1000).Result()
		if err != nil {
			log.Fatal(err)
		}
		allowed, retry := field(reply, 0, "allowed"), field(reply, 3, "retry_after_ms")
		fmt.Printf("RL.GCRA request %d: allowed=%d retry_after=%v\n",
			i, allowed, time.Duration(retry)*time.Millisecond)
	}
}

// field reads one reply field from a RESP2 array (by position) or a RESP3 map (by name).
func field(reply interface{}, index int, name string) int64 {
	switch r := reply.(type) {
	case []interface{}:
		return r[index].(int64)
	case map[interface{}]interface{}:
		return r[name].(int64)
	}
	log.Fatalf("unexpected reply %#v", reply)
	return 0
}
