-- wrk script of bench/routes.bench.ts: every request is a `profile.update` of one text field to a new value (so each
-- one changes the state and is written with fsync), spread over the first `profiles` profiles (`-- <profiles>` after
-- the URL). Prints one JSON line: request count, errors, and latency percentiles in milliseconds.

local profiles = 100
local counter = 0

function init(args)
  profiles = tonumber(args[1]) or profiles
end

function request()
  counter = counter + 1
  local body = string.format('{"op":"profile.update","id":"b-%d","patch":{"role":"角色修改 %d"}}', counter % profiles, counter)
  return wrk.format("POST", "/__ap/command", { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"n":%d,"errors":%d,"p50":%.4f,"p90":%.4f,"p99":%.4f,"max":%.4f}\n',
    summary.requests, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
