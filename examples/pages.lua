-- A home of pages the user swipes between (XCoordinator's HomePage, RxFlow's Trending): each page is a flow
-- on its own navigation stack, with its own details; the news page marks its news read when it shows.
-- Run: ./scripts/coordrun examples/pages.lua      (swipe("left") brings the next page, swipe("right") the previous)
local flow = require "coordinator"

flow.screen "Users" { title = "Users", inputs = { "users" }, outputs = { open = { from = "users", label = "name" } } }
flow.screen "User" { inputs = { "user" }, render = function(s) return s.user.name .. " joined in " .. s.user.year end }
flow.screen "News" {
  title = "News",
  inputs = { "news", "unread" },
  outputs = { open = { from = "news", label = "title" }, "users" },
  render = function(s) return s.unread > 0 and (s.unread .. " unread") or "All read" end,
}
flow.screen "Article" { inputs = { "article" }, render = function(s) return s.article.title end }

local Users = flow.coordinator "Users"
function Users:start()
  self:push("Users", { users = { { name = "Ann", year = 2019 }, { name = "Bob", year = 2021 } } }).onOpen = function(user)
    self:push("User", { user = user })
  end
end

local News = flow.coordinator "News"
function News:start()
  self.list = self:push("News", { news = { { id = "n1", title = "Coordinators in Lua" } }, unread = 1 })
  self.list.onOpen = function(article) self:push("Article", { article = article }) end
  -- A page's flow may show another page: the one that set the pages, or any page's flow.
  self.list.onUsers = function() self:selectPage("Users") end
end
-- Its page shows (a swipe, selectPage, a link): the news are read.
function News:onPageSelected() self.list.unread = 0 end

local Home = flow.coordinator "Home"
function Home:start()
  self:setPages { { "Users", Users }, { "News", News } }
end

flow.app(Home)

flow.route("pages://news/:id", {
  { page = "News" },
  { on = "News", tap = "open", choose = "id" },
  example = { id = "n1" },
})
