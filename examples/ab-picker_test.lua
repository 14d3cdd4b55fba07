-- Flow tests of examples/ab-picker.lua: ./scripts/coordrun test examples
app "ab-picker.lua"

test("the picker chosen by the factory gives the profile its city", function()
  expect.screen("Profile", { city = { name = "Moscow" } })
  tap("chooseCity")
  expect.stack { "Profile", top().name }
  tap("citySelected", top().cities[3])
  expect.screen("Profile", { city = { name = "Kazan" } })
end)
