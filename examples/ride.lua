-- A ride app, navigating on what the world outside sends: the booking the server answers later (a
-- request), the driver found and the car arrived (events), the app going to the background; and on time
-- passing: the minutes left count down, a search nobody answers gives up. Screens no tap reaches are reached by events and time, so exploration
-- sends them (coordrun explore examples/ride.lua reaches Tracking and Rating).
-- Run: ./scripts/coordrun examples/ride.lua      (request, answer("book", "accepted"), then
--      event("driverAssigned", { driver = "Ann", minutes = 2 }), advance(60), :pending)
local flow = require "coordinator"

flow.event "driverAssigned" { payload = "value", examples = { { driver = "Ann", minutes = 2 } } }
flow.event "arrived" {}
-- Booking asks the server, which answers later: accepted, or no cars around.
flow.request "book" { examples = { accepted = { ride = "r1" }, noCars = { reason = "no cars around" } } }

flow.screen "Home" { title = "Where to?", inputs = { "booking", "message" }, outputs = { "request" } }
flow.screen "Searching" { outputs = { "cancel" }, render = function() return "Looking for a driver..." end }
flow.screen "Tracking" {
  inputs = { "driver", "minutes" },
  render = function(s) return s.driver .. " arrives in " .. s.minutes .. " min" end,
}
flow.screen "Riding" { outputs = { "done" }, render = function() return "On the way" end }
flow.screen "Rating" { outputs = { rate = "value" }, examples = { rate = { 5, 1 } } }
flow.screen "Locked" { outputs = { "unlock" }, render = function() return "Ride in progress: unlock to see it" end }

local Ride = flow.coordinator "Ride"
function Ride:start()
  local searching = self:push("Searching")
  searching.onCancel = function() self:finish("cancelled") end
  -- Nobody found in two minutes: the request gives up.
  self.giveUp = self:after(120, function() self:finish("no driver") end)
  -- Only the world outside moves a ride on: the driver is found, then the car is there.
  self:onEvent("driverAssigned", function(assignment)
    if self.tracking then return end
    self.giveUp:cancel()
    -- Tracking takes the search's place: Back from it leaves the ride (its timers and screen go with it).
    self:pop()
    local tracking = self:push("Tracking", { driver = assignment.driver, minutes = assignment.minutes })
    self.tracking = tracking
    -- The minutes left count down as time passes, until the car is there.
    self.countdown = self:every(60, function()
      if tracking.minutes > 1 then tracking.minutes = tracking.minutes - 1 end
    end)
  end)
  self:onEvent("arrived", function()
    if not self.tracking or self.riding then return end
    self.riding = true
    self.countdown:cancel()
    self:push("Riding").onDone = function()
      self:push("Rating").onRate = function(stars) self:finish(stars) end
    end
  end)
  -- In the background, a ride in progress is locked until the user unlocks it.
  self:onEvent("background", function()
    if self.locked then return end
    self.locked = true
    self:present("Locked", nil, { presentation = "fullScreen" }).onUnlock = function()
      self.locked = false
      self:dismiss()
    end
  end)
end

local Home = flow.coordinator "Home"
function Home:start()
  local home = self:push("Home", { booking = false })
  home.onRequest = function()
    if home.booking then return end        -- one booking at a time
    home.booking = true
    self:request("book", { from = "here" }).onResult = function(outcome, answer)
      home.booking = false
      if outcome == "accepted" then
        home.message = nil
        self:run(Ride, nil, { onFinish = function(result) self.last = result end })
      else
        home.message = answer.reason
      end
    end
  end
end

flow.app(Home)

flow.route("ride://tracking", {
  { on = "Home", tap = "request" },
  { answer = "book", outcome = "accepted" },
  { event = "driverAssigned", payload = { driver = "Ann", minutes = 2 } },
})
