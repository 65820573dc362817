-- loop.lua - the call-heavy Lua scenario of Scripts/bench: many short calls into
-- the interpreter's C functions (calls, table and string operations, sorting).
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local total = fib(27)
local t = {}
for i = 1, 60000 do t[i] = (i * 7919) % 10007 end
table.sort(t)
local parts = {}
for i = 1, 60000 do parts[#parts + 1] = string.format("%d:%s", t[i], tostring(i)) end
local s = table.concat(parts, ",")
for word in s:gmatch("%d+:") do total = total + #word end
local m = {}
for i = 1, 60000 do m["k" .. (i % 997)] = (m["k" .. (i % 997)] or 0) + i end
for _, v in pairs(m) do total = total + v % 13 end
print(total)
