module example.com/sluice-go-example

go 1.21

require (
	github.com/go-redis/redis_rate/v10 v10.0.1
	github.com/redis/go-redis/v9 v9.5.1
)
