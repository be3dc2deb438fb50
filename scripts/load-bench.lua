-- wrk script of scripts/load-bench.sh: MCP 2026-07-28 stateless `tools/call` POSTs of one tool
-- (`wrk ... -s load-bench.lua URL -- echo|json_transform`), every answer checked, one summary
-- line at the end:
--   RESULT requests=N duration_us=N p50_us=N p99_us=N connect=N read=N write=N status=N
--          timeout=N non200=N bad_body=N
-- `bad_body` counts 200 answers that are not a JSON-RPC result carrying the expected text (a
-- JSON-RPC error, `isError: true`, or the wrong answer).

local meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    .. '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"4.1"},'
    .. '"io.modelcontextprotocol/clientCapabilities":{}}'

local calls = {
    echo = {
        arguments = '{"message":"hello from the load benchmark"}',
        expect = 'hello from the load benchmark',
    },
    json_transform = {
        arguments = '{"data":{"user":{"id":42,"name":"ada","tags":["admin","ops"],'
            .. '"limits":{"daily":100,"burst":2.5}},"items":[{"sku":"a-1","qty":2,'
            .. '"price":9.99},{"sku":"b-2","qty":1,"price":120},{"sku":"c-3","qty":5,'
            .. '"price":0.5}],"active":true,"note":null}}',
        -- `"USER"` inside the JSON text of the answer, escaped once.
        expect = '\\"USER\\":{\\"ID\\":84',
    },
}

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    local tool = args[1] or "echo"
    local call = calls[tool]
    if call == nil then
        error("load-bench.lua: no tool " .. tool)
    end
    expect = call.expect
    non200 = 0
    bad_body = 0
    wrk.method = "POST"
    wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' .. tool
        .. '","arguments":' .. call.arguments .. ',' .. meta .. '}}'
    wrk.headers["Content-Type"] = "application/json"
    wrk.headers["Accept"] = "application/json, text/event-stream"
    wrk.headers["Mcp-Protocol-Version"] = "2026-07-28"
    wrk.headers["Mcp-Method"] = "tools/call"
    wrk.headers["Mcp-Name"] = tool
end

function response(status, headers, body)
    if status ~= 200 then
        non200 = non200 + 1
    elseif not body:find('"result":', 1, true)
        or body:find('"isError":true', 1, true)
        or not body:find(expect, 1, true) then
        bad_body = bad_body + 1
    end
end

function done(summary, latency, requests)
    local non200_total, bad_total = 0, 0
    for _, thread in ipairs(threads) do
        non200_total = non200_total + thread:get("non200")
        bad_total = bad_total + thread:get("bad_body")
    end
    local e = summary.errors
    io.write(string.format(
        "RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d connect=%d read=%d write=%d "
            .. "status=%d timeout=%d non200=%d bad_body=%d\n",
        summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
        e.connect, e.read, e.write, e.status, e.timeout, non200_total, bad_total))
end
