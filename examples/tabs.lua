-- A tab bar whose tabs hold their own navigation stacks.
-- Run: ./scripts/coordrun examples/tabs.lua     (switch tabs with `tab(2)`)
local flow = require "coordinator"

flow.screen "Feed" { title = "Feed", outputs = { "open" }, render = function() return "Today's posts" end }
flow.screen "Post" { inputs = { "title" }, render = function(s) return "Post: " .. s.title end }
flow.screen "Profile" { title = "Profile", outputs = { "settings" }, render = function() return "Your profile" end }
flow.screen "Settings" { render = function() return "Settings" end }

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

local Tabs = flow.coordinator "Tabs"
function Tabs:start()
  self:setTabs { { "Feed", Feed }, { "Profile", Profile } }
end

flow.app(Tabs)
