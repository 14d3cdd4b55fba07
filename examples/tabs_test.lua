-- Flow tests of examples/tabs.lua: ./scripts/coordrun test examples
app "tabs.lua"

test("each tab keeps its own stack", function()
  expect.stack { "Feed" }
  tap("open")
  expect.screen("Post", { title = "Coordinators in Lua" })
  tab(3)
  expect.stack { "Profile" }
  tap("settings")
  expect.stack { "Profile", "Settings" }
  tab(1)
  expect.stack { "Feed", "Post" }
end)

test("back pops within the selected tab only", function()
  tap("open")
  back()
  expect.stack { "Feed" }
  expect.fails(back, "nothing to go back to")
end)

test("the Discover tab holds pages, each with its own stack", function()
  tab(2)
  expect.pages { "Trending", "Latest", selected = "Trending" }
  tap("open")
  expect.stack { "Trending", "Post" }
  swipe("left")
  expect.stack { "Latest" }
  tab(1)
  tab(2)
  expect.stack { "Latest" }
  swipe("right")
  expect.stack { "Trending", "Post" }
end)

test("a tab that does not exist is refused", function()
  expect.fails(function() tab(4) end, "there is no tab 4")
  expect.stack { "Feed" }
end)
