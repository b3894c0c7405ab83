-- wrk script: POSTs a filesystem with a name no other request of the run
-- uses (BENCH_PREFIX, the wrk thread and a counter), spread over the API
-- keys listed (one per line) in the file named by BENCH_KEYS.
local keys = {}
for line in io.lines(os.getenv("BENCH_KEYS")) do
  keys[#keys + 1] = line
end
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local n = 0
request = function()
  n = n + 1
  local body = string.format('{"name":"%s-t%d-%d","region":"us-east-1"}', os.getenv("BENCH_PREFIX") or "w", tid, n)
  return wrk.format("POST", nil, { ["Authorization"] = "Bearer " .. keys[(n % #keys) + 1],
    ["Content-Type"] = "application/json" }, body)
end
