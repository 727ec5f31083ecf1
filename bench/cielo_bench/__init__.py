"""The benchmark harness bench/run.sh and bench/auth.sh call (`python3 -m cielo_bench COMMAND`):
test data, PocketBase's setup, the gateway's SQL captured from the PostgreSQL log, CPU sampling,
parsing what wrk and pgbench print, and the results with their ratios and targets. Standard
library only."""
