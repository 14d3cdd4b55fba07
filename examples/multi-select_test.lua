-- Flow tests of examples/multi-select.lua: ./scripts/coordrun test examples
app "multi-select.lua"

test("one toggle on the cities updates the regions and the profile at once", function()
  tap("chooseCities")
  tap("regionSelected", top().regions[1])
  local cities = top().cities
  tap("toggle", cities[1])
  tap("toggle", cities[2])
  expect.equal(top().chosen, { [cities[1].name] = true, [cities[2].name] = true }, "chosen on the cities screen")
  tap("done")
  expect.screen "Regions"
  expect.equal(top():render():match("^[^\n]*"), top().regions[1].name .. ": 2 chosen", "the region's count")
  back()
  expect.screen "Profile"
  expect.equal(top().chosen, { [cities[1].name] = true, [cities[2].name] = true }, "chosen on the profile")
  expect.finished("Picker", { reason = "systemBack" })
end)

test("toggling twice unchooses", function()
  tap("chooseCities")
  tap("regionSelected", top().regions[2])
  tap("toggle", top().cities[1])
  tap("toggle", top().cities[1])
  expect.equal(top().chosen, {})
end)
