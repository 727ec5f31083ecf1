-- wrk's request script for bench/run.sh's HTTP scenarios:
--   wrk -s bench/wrk.lua URL -- METHOD PATH BODY ROWS ["Name: value"...]
--
-- args: method, path template ({id}, {pbid}, {amount}), body template ("" = none, "@bulk100" =
-- an array of 100 rows), number of rows, then "Name: value" headers.
-- Each thread formats a ring of requests with random ids and amounts before the run starts and
-- sends them in turn: formatting them per request in Lua cost wrk ~9 µs of CPU per request, CPU
-- the load generator takes from the servers it measures on this same machine (pgbench draws its
-- random values in C).
local method, template, body_template, rows, headers = "GET", "/", "", 10000, {}
local ring, ring_size, next_request = {}, 0, 0
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("thread_number", counter)
end
local function fill(text, id)
  text = text:gsub("{id}", tostring(id))
  text = text:gsub("{pbid}", string.format("i%014d", id))
  return (text:gsub("{amount}", tostring(math.random(0, 9000))))
end
local bulk_row = '{"owner":"8d3f6c0e-52a4-4c55-9a53-1f0e9d6b7a21","title":"bulk","amount":%d}'
local function format_request()
  local id = math.random(1, rows)
  local body = nil
  if body_template == "@bulk100" then
    local parts = {}
    for i = 1, 100 do parts[i] = string.format(bulk_row, math.random(0, 9000)) end
    body = "[" .. table.concat(parts, ",") .. "]"
  elseif body_template ~= "" then
    body = fill(body_template, id)
  end
  return wrk.format(method, fill(template, id), headers, body)
end
function init(args)
  method = args[1]
  template = args[2]
  body_template = args[3]
  rows = tonumber(args[4])
  for i = 5, #args do
    local name, value = args[i]:match("^([^:]+):%s*(.*)$")
    headers[name] = value
  end
  math.randomseed(os.time() * 1000 + (thread_number or 0) * 7919)
  -- As many requests as there are rows, fewer of the 7 KB bulk bodies.
  ring_size = body_template == "@bulk100" and 256 or math.max(rows, 1024)
  for i = 1, ring_size do ring[i] = format_request() end
end
function request()
  next_request = next_request % ring_size + 1
  return ring[next_request]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d,"non2xx":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, latency.max, e.status, e.connect + e.read + e.write + e.timeout))
end
