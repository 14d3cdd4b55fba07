-- A tab bar whose tabs hold their own navigation stacks, and a tab that holds pages (as UIKit apps put a
-- page view inside a tab).
-- Run: ./scripts/coordrun examples/tabs.lua     (switch tabs with `tab(2)`; in Discover, `swipe("left")`)
local flow = require "coordinator"

flow.screen "Feed" { title = "Feed", outputs = { "open" }, render = function() return "Today's posts" end }
flow.screen "Post" { inputs = { "title" }, render = function(s) return "Post: " .. s.title end }
flow.screen "Profile" { title = "Profile", outputs = { "settings" }, render = function() return "Your profile" end }
flow.screen "Settings" { render = function() return "Settings" end }
flow.screen "Trending" { title = "Trending", outputs = { "open" }, render = function() return "What people read" end }
flow.screen "Latest" { title = "Latest", render = function() return "Just in" end }

local Feed = flow.coordinator "Feed"
function Feed:start()
  local feed = self:push("Feed")
  feed.onOpen = function() self:push("Post", { title = "Coordinators in Lua" }) end
end

local Profile = flow.coordinator "Profile"
function Profile:start()
  local profile = self:push("Profile")
  profile.onSettings = function() self:push("Settings") end
end

local Trending = flow.coordinator "Trending"
function Trending:start()
  self:push("Trending").onOpen = function() self:push("Post", { title = "The most read" }) end
end

local Latest = flow.coordinator "Latest"
function Latest:start() self:push("Latest") end

-- The Discover tab's flow puts pages where its tab's stack was; each page is a flow of its own.
local Discover = flow.coordinator "Discover"
function Discover:start()
  self:setPages { { "Trending", Trending }, { "Latest", Latest } }
end

local Tabs = flow.coordinator "Tabs"
function Tabs:start()
  self:setTabs { { "Feed", Feed }, { "Discover", Discover }, { "Profile", Profile } }
end

flow.app(Tabs)
