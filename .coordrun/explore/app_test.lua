-- Found by `coordrun explore` (docs/Explore.md): each test takes the shortest path to what it names.
app "/work/main/scripts/app.lua"

test("dead end 1: Login has no way forward and no way back", function()
  back() -- no way back
end)
