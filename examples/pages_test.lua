-- Flow tests of examples/pages.lua: ./scripts/coordrun test examples
app "pages.lua"

test("the user swipes between pages, each with its own stack", function()
  expect.pages { "Users", "News", selected = "Users" }
  tap("open", top().users[1])
  expect.stack { "Users", "User" }
  swipe("left")
  expect.pages { "Users", "News", selected = "News" }
  expect.stack { "News" }
  swipe("right")
  expect.stack { "Users", "User" }
end)

test("there is no page past either end", function()
  expect.fails(function() swipe("right") end, "there is no page before Users")
  swipeTo(2)
  expect.fails(function() swipe("left") end, "there is no page after News")
  expect.fails(function() swipeTo(3) end, "there is no page 3")
end)

test("the news are read when their page shows", function()
  swipeTo("News")
  expect.screen("News", { unread = 0 })
end)

test("a page's flow shows another page", function()
  swipeTo(2)
  expect.events(function() tap("users") end, { "News", "select page 1" })
  expect.pages { "Users", "News", selected = "Users" }
end)

test("a link swipes to the news and opens one", function()
  open("pages://news/n1")
  expect.stack { "News", "Article" }
  expect.pages { "Users", "News", selected = "News" }
end)
