local flow = require "coordinator"
flow.screen "Menu" { outputs = { "orders", "help" } }
flow.screen "Orders" { inputs = { "orders" }, outputs = { open = { from = "orders" } } }
flow.screen "Order" { inputs = { "order" }, outputs = { "track" } }
flow.screen "Tracking" { inputs = { "order" } }
flow.screen "Help" { outputs = { "agent" } }
flow.screen "Agent" { }
local orders = flow.freeze { { id = "A1", name = "Shoes" }, { id = "B2", name = "Shirt" } }
local Bot = flow.coordinator "Bot"
function Bot:start()
  local menu = self:push("Menu")
  menu.onOrders = function()
    self:push("Orders", { orders = orders }).onOpen = function(order)
      self.order = order.id
      self:push("Order", { order = order }).onTrack = function() self:push("Tracking", { order = order }) end
    end
  end
  menu.onHelp = function() self:push("Help").onAgent = function() self:push("Agent") end end
end
flow.app { authorization = Bot }
