-- Settings in a split view (RxFlow's settings, XCoordinator's HomeSplit): a list in the primary column, the
-- chosen setting in the secondary one. In a compact window (a phone, `sizeClass("compact")`) the columns
-- collapse into one stack, the detail pushed over the list, and expand back when the window is regular.
-- Run: ./scripts/coordrun examples/split.lua      (or ./scripts/coordrun --size-class compact examples/split.lua)
local flow = require "coordinator"

flow.screen "Settings" {
  title = "Settings",
  inputs = { "items" },
  outputs = { open = { from = "items", label = "title" } },
}
flow.screen "Placeholder" { render = function() return "Choose a setting" end }
flow.screen "Setting" {
  inputs = { "item", "on" },
  outputs = { "toggle" },
  render = function(s) return s.item.title .. ": " .. (s.on and "on" or "off") end,
}

local Menu = flow.coordinator "Menu"
function Menu:start()
  self.state = { wifi = true, bluetooth = false }
  local items = { { id = "wifi", title = "Wi-Fi" }, { id = "bluetooth", title = "Bluetooth" } }
  self:push("Settings", { items = items }).onOpen = function(item)
    -- The chosen setting replaces the secondary column, whoever shows it.
    local setting = self:showDetail("Setting", { item = item, on = self.state[item.id] })
    setting.onToggle = function()
      self.state[item.id] = not self.state[item.id]
      setting.on = self.state[item.id]
    end
  end
end

local Detail = flow.coordinator "Detail"
function Detail:start() self:push("Placeholder") end

local Home = flow.coordinator "Home"
function Home:start()
  self:setSplit { primary = { Menu }, secondary = { Detail } }
end

flow.app(Home)

flow.route("split://settings/:id", {
  { on = "Settings", tap = "open", choose = "id" },
  example = { id = "wifi" },
})
