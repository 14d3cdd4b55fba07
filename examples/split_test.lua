-- Flow tests of examples/split.lua: ./scripts/coordrun test examples
app "split.lua"

test("side by side, a setting shows in the secondary column", function()
  expect.sizeClass("regular")
  expect.split { primary = { "Settings" }, secondary = { "Placeholder" } }
  expect.equal(top().name, "Placeholder")
  expect.equal(top("primary").name, "Settings")
  tap("open", top("primary").items[1])          -- the primary's output: the only column that has it
  expect.split { primary = { "Settings" }, secondary = { "Setting" } }
  tap("toggle")                                  -- the secondary's
  expect.equal(top().on, false)
  expect.equal(stack(), { "Settings", "Setting" })
  expect.fails(back, "the root screen of the secondary column")
end)

test("a compact window collapses the split into one stack, and expands it back", function()
  tap("open", top("primary").items[2])
  sizeClass("compact")
  expect.sizeClass("compact")
  expect.screen("Setting")
  back()                                         -- the detail goes, as a pop
  expect.screen("Settings")
  expect.split { primary = { "Settings" }, secondary = {} }
  expect.fails(back, "nothing to go back to")
  tap("open", top().items[1])
  expect.equal(stack(), { "Settings", "Setting" })
  sizeClass("regular")
  expect.split { primary = { "Settings" }, secondary = { "Setting" } }
end)

test("a link opens a setting beside the list", function()
  open("split://settings/wifi")
  expect.screen("Setting", { item = { id = "wifi", title = "Wi-Fi" }, on = true })
end)
