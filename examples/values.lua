-- What crosses between Lua and Swift intact. Run: ./scripts/coordrun examples/values.lua
local big = (1 << 53) + 1
print("integer beyond 2^53:", big, math.type(big))
local s = "a\0b"
print("string with a NUL byte has length", #s)
local ok, err = pcall(function() local t = nil; return t.x end)
print("errors carry their location:", err)
