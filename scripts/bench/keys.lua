-- wrk script: spreads requests over the API keys listed (one per line) in
-- the file named by BENCH_KEYS, so every account's path is exercised.
local keys = {}
for line in io.lines(os.getenv("BENCH_KEYS")) do
  keys[#keys + 1] = line
end
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. keys[(n % #keys) + 1] })
end
